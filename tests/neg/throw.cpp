// expect: throw\.cpp:.*exception handling disabled
void fail(int);
void fail(int x)
{
	if (x)
		throw x;
}
