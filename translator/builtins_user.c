/* builtins_user.c -- script functions of the user symbols and user memory: usymname, user_string, ... (issue 5).
 *
 * Group 2 of builtins.c's groups: ids from 2 * TR_BUILTIN_GROUP_BASE.
 */
#include <config.h>

#include "interp.h"

static const struct tr_builtin table[] = {
	{ NULL, 0, 0, { TY_UNKNOWN }, TY_UNKNOWN, 0 },
};

static void call(struct interp *I, struct node *n, int64_t *l,
		 struct sref *s)
{
	(void)I;
	(void)n;
	(void)s;
	*l = 0;
}

const struct tr_builtin_group tr_builtins_user = {
	.table = table,
	.n = 0,
	.call = call,
};
