/* toy.h: a step function for the kernelreport tests */
int toy_step(int *s)
{
	if (s[0] == 0)
		return toy_pop(s);
	toy_node(s);
	if (s[1])
		toy_push(s);
	return 1;
}
