/* Listens on a Unix stream socket at PATH, accepts one connection and copies
 * what it receives to OUT (tests/output/output_nodes.sh: an output written
 * through a socket).   socket_sink PATH OUT */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3 || strlen(argv[1]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        fprintf(stderr, "usage: socket_sink PATH OUT\n");
        return 2;
    }
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    strcpy(address.sun_path, argv[1]);
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(listener, 1) != 0) {
        perror("socket_sink");
        return 1;
    }
    int fd = accept(listener, NULL, NULL);
    FILE *out = fopen(argv[2], "wb");
    if (fd < 0 || !out) {
        perror("socket_sink");
        return 1;
    }
    char buffer[4096];
    ssize_t n;
    while ((n = read(fd, buffer, sizeof buffer)) > 0)
        fwrite(buffer, 1, (size_t)n, out);
    fclose(out);
    close(fd);
    close(listener);
    return n < 0;
}
