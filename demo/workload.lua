-- SPDX-License-Identifier: GPL-2.0
--
-- The demo's workload for the Lua interpreter: CPU-bound, deterministic,
-- and shaped so that the interpreter's C stack is deep: sorts whose
-- comparators are Lua functions (C calls Lua), run inside nested
-- protected calls (each level is a C frame chain), and a recursive
-- Fibonacci.  It allocates little after warm-up, so that nearly all
-- samples are in the interpreter's own code, not in the C library.
--
-- lua workload.lua [ROUNDS]

local rounds = tonumber(arg[1]) or 10
local seed = 42

local function rand()
	seed = (seed * 1103515245 + 12345) % 2147483648
	return seed
end

local function fib(n)
	if n < 2 then
		return n
	end
	return fib(n - 1) + fib(n - 2)
end

-- Call f(...) from inside DEPTH nested pcall()s.
local function nest(depth, f, ...)
	if depth == 0 then
		return f(...)
	end
	local ok, v = pcall(nest, depth - 1, f, ...)
	assert(ok, v)
	return v
end

local function by_low_digits(a, b)
	return a % 1000 < b % 1000
end

local data = {}
local sum = 0
for _ = 1, rounds do
	for i = 1, 1000 do
		data[i] = rand()
	end
	nest(6, table.sort, data, by_low_digits)
	sum = sum + nest(3, fib, 17) + data[1] % 1000
end
print(sum)
