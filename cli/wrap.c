/* Word-wrapped text for the commands that print prose (lessons, reasons). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

void cli_print_wrapped(FILE *out, const char *indent, const char *text, int width)
{
    const int room = width - (int)strlen(indent) > 20 ? width - (int)strlen(indent) : 20;
    while (*text) {
        while (*text == ' ')
            text++;
        if (!*text)
            break;
        /* The longest run of whole words that fits, or one long word. */
        int length = 0, cut = 0;
        while (text[length] && text[length] != '\n' && length < room) {
            length++;
            if (text[length] == ' ' || text[length] == '\0' || text[length] == '\n')
                cut = length;
        }
        if (!text[length] || text[length] == '\n')
            cut = length;
        else if (cut == 0)
            while (text[cut] && text[cut] != ' ' && text[cut] != '\n')
                cut++;
        fprintf(out, "%s%.*s\n", indent, cut, text);
        text += cut;
        if (*text == '\n')
            text++;
    }
}
