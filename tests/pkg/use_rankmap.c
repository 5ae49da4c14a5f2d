/* SPDX-License-Identifier: Apache-2.0 */
/* A program an installed librankmap must serve: built with
 * `pkg-config --cflags --libs rankmap`, it has to start (find
 * librankmap.so.0), parse a layout and write through the public text API
 * (rankmap_text.h). Prints the layout's GPU count as a JSON string. */
#include <rankmap.h>
#include <rankmap_text.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	rm_layout l;
	rm_error e;
	if (rm_layout_parse("tp=8,pp=16,dp=128", &l, &e) != RM_OK)
		return 1;
	rm_buf b;
	rm_buf_init(&b);
	rm_buf_printf(&b, "%llu GPUs", (unsigned long long)rm_layout_world(&l));
	char *text = rm_buf_take(&b, NULL);
	if (!text)
		return 1;
	rm_buf_json_str(&b, text);
	char *json = rm_buf_take(&b, NULL);
	if (!json)
		return 1;
	printf("%s\n%s\n", text, json);
	free(text);
	free(json);
	return 0;
}
