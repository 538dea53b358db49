#!/usr/bin/env python3
"""What a program linked with warplab needs to start, and what it costs.

  check_startup.py needed FILE...
      Fails if the dynamic section of any FILE (ELF: the tool, libwarplab.so)
      lists the CUDA runtime, cuBLAS, cuBLASLt or NCCL among its NEEDED
      libraries: those are loaded on first use, never at start-up.
  check_startup.py rss LIMIT_MIB COMMAND...
      Runs COMMAND and fails if it fails or its peak resident set exceeds
      LIMIT_MIB.
  check_startup.py hidden LIBDIR COMMAND...
      Runs COMMAND through the dynamic loader with the loader's cache and
      every RUNPATH ignored, LIBDIR (where libwarplab.so is) and the system's
      own directories the only places searched: the CUDA toolkit's libraries
      cannot be found. Fails if COMMAND does.
"""
import os
import resource
import struct
import subprocess
import sys

VENDOR = ("libcudart.so", "libcublas.so", "libcublasLt.so", "libnccl.so")
# The directories ld.so searches whatever its cache and the RUNPATHs say.
SYSTEM_DIRS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/lib/x86_64-linux-gnu",
               "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu")


def elf_dynamic(path):
    """(NEEDED names, interpreter or None) of a 64-bit little-endian ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit(f"{path}: not a 64-bit little-endian ELF file")
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dynamic, interp = [], None, None
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize)
        if p_type == 1:  # PT_LOAD
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == 2:  # PT_DYNAMIC
            dynamic = (p_offset, p_filesz)
        elif p_type == 3:  # PT_INTERP
            interp = data[p_offset:p_offset + p_filesz].rstrip(b"\0").decode()
    if dynamic is None:
        return [], interp

    def file_offset(vaddr):
        for start, offset, size in loads:
            if start <= vaddr < start + size:
                return offset + vaddr - start
        raise SystemExit(f"{path}: address {vaddr:#x} outside the file")

    needed, strtab = [], None
    offset, size = dynamic
    for at in range(offset, offset + size, 16):
        tag, value = struct.unpack_from("<qQ", data, at)
        if tag == 0:  # DT_NULL
            break
        if tag == 1:  # DT_NEEDED
            needed.append(value)
        elif tag == 5:  # DT_STRTAB
            strtab = file_offset(value)
    if needed and strtab is None:
        raise SystemExit(f"{path}: NEEDED entries but no string table")
    names = []
    for name in needed:
        start = strtab + name
        names.append(data[start:data.index(b"\0", start)].decode())
    return names, interp


def needed(files):
    bad = 0
    for path in files:
        names, _ = elf_dynamic(path)
        vendor = [n for n in names if n.startswith(VENDOR)]
        print(f"{path}: NEEDED {', '.join(names) or '(none)'}")
        if vendor:
            print(f"  loads {', '.join(vendor)} at start-up: they must load on first use")
            bad += 1
    if not files:
        raise SystemExit("no files to check")
    return 1 if bad else 0


def rss(limit_mib, command):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0  # KiB on Linux
    print(result.stdout, end="")
    print(f"{' '.join(command)}: exit {result.returncode}, peak RSS {peak_mib:.1f} MiB "
          f"(limit {limit_mib} MiB)")
    if result.returncode != 0:
        return 1
    return 1 if peak_mib > limit_mib else 0


def hidden(libdir, command):
    program = command[0]
    _, interp = elf_dynamic(program)
    if not interp:
        raise SystemExit(f"{program}: no interpreter (a static program?)")
    # Every object's RUNPATH ignored: the ones warplab builds and the
    # program itself (ld.so matches the names it loaded them by).
    ignored = ":".join([program, os.path.basename(program), "libwarplab.so.0"])
    hide = [interp, "--inhibit-cache", "--inhibit-rpath", ignored, "--library-path", libdir]
    print(f"hidden: {' '.join(hide + command)}", flush=True)
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    # A vendor library installed in the system's own directories (a GPU
    # machine's libnccl.so.2 in /usr/lib/x86_64-linux-gnu) cannot be hidden
    # from the loader: name it where it is not, so that the program meets it
    # missing all the same.
    for variable, soname in (("WARPLAB_CUBLAS_LIBRARY", "libcublas.so"),
                             ("WARPLAB_NCCL_LIBRARY", "libnccl.so")):
        found = [os.path.join(d, f) for d in SYSTEM_DIRS if os.path.isdir(d)
                 for f in os.listdir(d) if f.startswith(soname)]
        if found:
            env[variable] = os.path.join(libdir, "absent", os.path.basename(found[0]))
            print(f"hidden: {found[0]} is in a system directory: "
                  f"{variable}={env[variable]}", flush=True)
    return subprocess.run(hide + command, env=env).returncode


def main(argv):
    if len(argv) >= 3 and argv[1] == "needed":
        return needed(argv[2:])
    if len(argv) >= 4 and argv[1] == "rss":
        return rss(float(argv[2]), argv[3:])
    if len(argv) >= 4 and argv[1] == "hidden":
        return hidden(argv[2], argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
