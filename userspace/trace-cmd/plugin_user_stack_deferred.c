// SPDX-License-Identifier: LGPL-2.1
/*
 * A libtraceevent plugin that prints the deferred user stack traces of
 * ftrace (the "userstacktrace_deferred" option) the way the kernel's trace
 * file does: the cookie, then one line per frame.
 *
 * The format file of ftrace/user_stack_deferred describes the frames as
 * "unsigned long caller[]": as many as the record holds, which the print
 * format of the format file cannot loop over.
 *
 * trace-cmd finds it in a directory named by TRACEEVENT_PLUGIN_DIR, or in
 * ~/.local/lib/traceevent/plugins.
 */
#include <stdlib.h>

#include <event-parse.h>
#include <trace-seq.h>

static int print_user_stack_deferred(struct trace_seq *s,
				     struct tep_record *record,
				     struct tep_event *event, void *context)
{
	int long_size = tep_get_long_size(event->tep);
	unsigned long long cookie, nr, i, room;
	struct tep_format_field *caller;

	if (tep_get_field_val(s, event, "cookie", record, &cookie, 1) ||
	    tep_get_field_val(s, event, "nr", record, &nr, 1))
		return 0;
	caller = tep_find_field(event, "caller");
	if (!caller || long_size <= 0 || caller->offset > record->size)
		return 0;

	/* Believe the record's size rather than its count */
	room = (record->size - caller->offset) / long_size;
	if (nr > room)
		nr = room;

	trace_seq_printf(s, "<deferred user stack trace: cookie=0x%llx>",
			 cookie);
	for (i = 0; i < nr; i++) {
		const char *p = (const char *)record->data + caller->offset +
				i * long_size;

		trace_seq_printf(s, "\n => <%0*llx>", 2 * long_size,
				 tep_read_number(event->tep, p, long_size));
	}
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	return tep_register_event_handler(tep, -1, "ftrace",
					  "user_stack_deferred",
					  print_user_stack_deferred, NULL);
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	tep_unregister_event_handler(tep, -1, "ftrace", "user_stack_deferred",
				     print_user_stack_deferred, NULL);
}
