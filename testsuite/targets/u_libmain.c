/* u_libmain.c -- calls into u_lib.c's library: main -> u_lib_entry ->
 * u_lib_inner -> raise(SIGSTOP).
 */
int u_lib_entry(int x);

int main(void)
{
	return u_lib_entry(1) == 12345;
}
