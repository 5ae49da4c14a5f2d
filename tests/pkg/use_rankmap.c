/* A program an installed librankmap must serve: built with
 * `pkg-config --cflags --libs rankmap`, it has to start (find
 * librankmap.so.0) and parse a layout. Prints the layout's GPU count. */
#include <rankmap.h>
#include <stdio.h>

int main(void)
{
	rm_layout l;
	rm_error e;
	if (rm_layout_parse("tp=8,pp=16,dp=128", &l, &e) != RM_OK)
		return 1;
	printf("%llu GPUs\n", (unsigned long long)rm_layout_world(&l));
	return 0;
}
