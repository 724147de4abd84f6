/* SPDX-License-Identifier: GPL-2.0 */
/* The two macros of libiberty's ansidecl.h that libsframe-dev's sframe.h uses. */
#ifndef EH2SFRAME_ANSIDECL_H
#define EH2SFRAME_ANSIDECL_H
#define ATTRIBUTE_PACKED __attribute__((packed))
#define ATTRIBUTE_UNUSED __attribute__((unused))
#endif
