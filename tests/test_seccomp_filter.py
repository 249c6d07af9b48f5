"""The worker's seccomp program, judged instruction by instruction, for both architectures, on any machine.

A small interpreter of classic BPF (the instructions ``grader.isolation.kernel_rules`` emits) runs the assembled
program on a ``struct seccomp_data`` per call, architecture and argument, and the test asserts the verdict the
kernel would act on. The system call numbers below are written out again from the kernel's tables (x86-64's
syscall_64.tbl, the generic unistd.h that arm64 uses, and the shared design's table), not read from the module, so a
wrong number in either place fails here. Whether the running kernel applies the program is tested by the gradings
in test_network_walls.py; this file needs no seccomp at all.
"""

import struct

import pytest

from grader.isolation import kernel_rules

ALLOW, EPERM, ENOSYS = kernel_rules.SECCOMP_RET_ALLOW, kernel_rules.SECCOMP_RET_ERRNO | 1, kernel_rules.SECCOMP_RET_ERRNO | 38
AUDIT = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
AUDIT_I386, AUDIT_ARM = 0x40000003, 0x40000028

# name: (x86-64, arm64); None where the architecture has no such call. Every one must be refused with EPERM.
REFUSED = {
    "socket": (41, 198), "connect": (42, 203), "bind": (49, 200), "listen": (50, 201), "accept": (43, 202),
    "accept4": (288, 242), "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "kcmp": (312, 272), "pidfd_getfd": (438, 438), "process_madvise": (440, 440), "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426), "io_uring_register": (427, 427), "unshare": (272, 97), "setns": (308, 268),
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41), "chroot": (161, 51), "open_tree": (428, 428),
    "move_mount": (429, 429), "fsopen": (430, 430), "fsconfig": (431, 431), "fsmount": (432, 432),
    "fspick": (433, 433), "mount_setattr": (442, 442), "bpf": (321, 280), "userfaultfd": (323, 282),
    "perf_event_open": (298, 241), "personality": (135, 92), "keyctl": (250, 219), "add_key": (248, 217),
    "request_key": (249, 218), "pidfd_open": (434, 434), "pidfd_send_signal": (424, 424),
    "process_mrelease": (448, 448), "reboot": (169, 142), "kexec_load": (246, 104), "kexec_file_load": (320, 294),
    "init_module": (175, 105), "finit_module": (313, 273), "delete_module": (176, 106), "swapon": (167, 224),
    "swapoff": (168, 225), "iopl": (172, None), "ioperm": (173, None), "settimeofday": (164, 170),
    "clock_settime": (227, 112), "clock_adjtime": (305, 266), "adjtimex": (159, 171), "sethostname": (170, 161),
    "setdomainname": (171, 162), "acct": (163, 89), "quotactl": (179, 60), "quotactl_fd": (443, 443),
    "open_by_handle_at": (304, 265), "fanotify_init": (300, 262), "syslog": (103, 116),
    "fork": (57, None), "vfork": (58, None),
    # System V and POSIX IPC, named machine-wide (an attacker's channel out, found in issue 40's trials).
    "shmget": (29, 194), "shmat": (30, 196), "shmctl": (31, 195), "shmdt": (67, 197), "semget": (64, 190),
    "semop": (65, 193), "semctl": (66, 191), "semtimedop": (220, 192), "msgget": (68, 186), "msgsnd": (69, 189),
    "msgrcv": (70, 188), "msgctl": (71, 187), "mq_open": (240, 180), "mq_unlink": (241, 181),
    "mq_timedsend": (242, 182), "mq_timedreceive": (243, 183), "mq_notify": (244, 184), "mq_getsetattr": (245, 185),
    # Owners and extended attributes, which Landlock does not govern (the same trials: xattrs outside scratch).
    "chown": (92, None), "fchown": (93, 55), "lchown": (94, None), "fchownat": (260, 54),
    "setxattr": (188, 5), "lsetxattr": (189, 6),
    "fsetxattr": (190, 7), "removexattr": (197, 14), "lremovexattr": (198, 15), "fremovexattr": (199, 16),
    # Reserving disk at 100 GB/s past the per-file limit, many files in one case (issue 40's trial).
    "fallocate": (285, 47),
    "setxattrat": (463, 463), "removexattrat": (466, 466), "file_setattr": (469, 469), "open_tree_attr": (467, 467),
    # Of the same kinds: moving another process's pages, and old root-only calls (most now ENOSYS anyway).
    "migrate_pages": (256, 238), "move_pages": (279, 239), "create_module": (174, None), "uselib": (134, None),
    "vhangup": (153, 58), "lookup_dcookie": (212, 18), "_sysctl": (156, None), "nfsservctl": (180, 42),
    # x86's local descriptor table and the obsolete calls that tell of file systems and kernel modules.
    "modify_ldt": (154, None), "sysfs": (139, None), "ustat": (136, None), "get_kernel_syms": (177, None),
    "query_module": (178, None),
    # Another process's share of the machine (issue 40's fourth trial, as root: SCHED_FIFO 99 starved a process on
    # the same CPU for 1.75 s of 2.5 s; mlockall; realtime I/O) and memory files past the address-space limit.
    "sched_setscheduler": (144, 119), "sched_setparam": (142, 118), "sched_setattr": (314, 274),
    "ioprio_set": (251, 30), "mlock": (149, 228), "mlock2": (325, 284), "mlockall": (151, 230),
    "memfd_create": (319, 279), "memfd_secret": (447, 447),
    # Watching and holding files outside: inotify (root's 128 instances used up machine-wide), flock (held
    # /etc/.pwd.lock from plain Python).
    "inotify_init": (253, None), "inotify_init1": (294, 26), "flock": (73, 32),
    # The fifth trial: huge pages pinned by vmsplice outside every limit; native AIO contexts from a machine-wide
    # pool; a filter of the worker's own that logged an input into the kernel log; Landlock rules as kernel memory.
    "vmsplice": (278, 75), "io_setup": (206, 0), "seccomp": (317, 277), "landlock_create_ruleset": (444, 444),
    "landlock_add_rule": (445, 445), "landlock_restrict_self": (446, 446),
}
# A file's mode and times: answered with success (errno 0) and not run, so shutil.copy in scratch works and
# nothing changes outside (the trials wrote inputs into both).
PRETENDED = {
    "chmod": (90, None), "fchmod": (91, 52), "fchmodat": (268, 53), "fchmodat2": (452, 452), "utime": (132, None),
    "utimes": (235, None), "futimesat": (261, None), "utimensat": (280, 88),
    "umask": (95, 166),  # a mask of 0o700 made folders a grader that is not root could not list (the trial)
}
# Calls that act on a process by its id: (x86-64, arm64).
SELF_CALLS = {
    "setpriority": (141, 140), "sched_setaffinity": (203, 122), "prlimit64": (302, 261), "get_robust_list": (274, 100), "kill": (62, 129), "tkill": (200, 130),
    "tgkill": (234, 131), "rt_sigqueueinfo": (129, 138), "rt_tgsigqueueinfo": (297, 240),
}
PRCTL, FCNTL, SETSOCKOPT = (157, 167), (72, 25), (54, 208)
WORKER = 4242  # the process id the tests build the program for
# What CPython, glibc and a correct submission call all the time: never refused (a refused read or futex kills the
# interpreter; the shared design's hazards).
ALLOWED = {
    "read": (0, 63), "write": (1, 64), "openat": (257, 56), "close": (3, 57), "mmap": (9, 222), "munmap": (11, 215),
    "mprotect": (10, 226), "brk": (12, 214), "futex": (202, 98), "exit_group": (231, 94), "exit": (60, 93),
    "rt_sigreturn": (15, 139), "rt_sigaction": (13, 134), "getpid": (39, 172), "getppid": (110, 173),
    "clock_gettime": (228, 113), "newfstatat": (262, 79), "getrandom": (318, 278), "pipe2": (293, 59),
    "epoll_create1": (291, 20), "epoll_ctl": (233, 21), "epoll_pwait": (281, 22), "sendto": (44, 206),
    "recvfrom": (45, 207), "sendmsg": (46, 211), "recvmsg": (47, 212), "getsockopt": (55, 209),
    "shutdown": (48, 210), "uname": (63, 160), "execve": (59, 221), "set_robust_list": (273, 99),
    "rseq": (334, 293), "splice": (275, 76), "tee": (276, 77),
}
SOCKETPAIR, CLONE, CLONE3, IOCTL, MKNODAT, MKNOD = (53, 199), (56, 220), (435, 435), (16, 29), (259, 33), (133, None)
MKDIRAT, MKDIR = (258, 34), (83, None)
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_NONBLOCK, SOCK_CLOEXEC = 1, 2, 5, 0o4000, 0o2000000
CLONE_VM, CLONE_FS, CLONE_FILES, CLONE_SIGHAND, CLONE_THREAD = 0x100, 0x200, 0x400, 0x800, 0x10000
THREAD_FLAGS = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | 0x80000 | 0x100000 | 0x200000 | 0x400000


def run_filter(program, nr, arch, args=(), pointer=0x7FFF12345678):
    """The verdict (int: SECCOMP_RET_*) of the classic BPF ``program`` on one ``struct seccomp_data``.

    Interprets exactly the instructions the kernel would accept from a seccomp filter that the kit emits: absolute
    word loads, AND with a constant, unconditional and conditional jumps with a constant, return a constant. An
    instruction of any other kind fails the test (the kernel's checker would refuse the program). A jump past the
    end fails too.
    """
    data = struct.pack("<iIQ6Q", nr, arch, pointer, *(list(args) + [0] * 6)[:6])
    accumulator, index, steps = 0, 0, 0
    while True:
        assert 0 <= index < len(program), f"the program ran off its end at {index}"
        code, jt, jf, k = program[index]
        steps += 1
        assert steps <= len(program), "a classic BPF program cannot loop"
        if code == 0x20:  # BPF_LD | BPF_W | BPF_ABS
            assert k % 4 == 0 and k + 4 <= len(data), f"a load at offset {k}"
            accumulator = struct.unpack_from("<I", data, k)[0]
        elif code == 0x54:  # BPF_ALU | BPF_AND | BPF_K
            accumulator &= k
        elif code == 0x05:  # BPF_JMP | BPF_JA
            index += k
        elif code in (0x15, 0x35, 0x45):  # BPF_JMP | BPF_JEQ / BPF_JGE / BPF_JSET, constant
            taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: bool(accumulator & k)}[code]
            index += jt if taken else jf
        elif code == 0x06:  # BPF_RET | BPF_K
            return k
        else:
            raise AssertionError(f"instruction {index} has opcode {code:#x}, which the kit never emits")
        index += 1


MACHINES = [("x86_64", 0), ("aarch64", 1)]


@pytest.fixture(params=MACHINES, ids=[m for m, _ in MACHINES])
def machine(request):
    name, column = request.param
    program = kernel_rules.filter_instructions(name, pid=WORKER)
    return name, column, program


def number(pair, column):
    return pair[column]


def test_the_program_is_one_the_kernel_accepts(machine):
    name, _, program = machine
    assert 10 < len(program) <= kernel_rules.BPF_MAXINSNS
    for code, jt, jf, k in program:
        assert code in (0x20, 0x54, 0x05, 0x15, 0x35, 0x45, 0x06)
        assert 0 <= jt < 256 and 0 <= jf < 256 and 0 <= k < 2 ** 32
    assert program[-1][0] == 0x06  # the last instruction returns
    assert kernel_rules.confinement_filter(name)[0].code == program[0][0]  # the same program, as the kernel reads it


@pytest.mark.parametrize("call", sorted(REFUSED))
def test_every_listed_call_is_refused_with_eperm(machine, call):
    name, column, program = machine
    nr = REFUSED[call][column]
    if nr is None:
        pytest.skip(f"{name} has no {call} system call")
    assert run_filter(program, nr, AUDIT[name], args=(AF_UNIX, SOCK_STREAM, 0)) == EPERM


@pytest.mark.parametrize("call", sorted(ALLOWED))
def test_what_python_calls_all_the_time_is_allowed(machine, call):
    name, column, program = machine
    assert run_filter(program, ALLOWED[call][column], AUDIT[name], args=(3, 0, 0)) == ALLOW


def test_only_a_unix_stream_socket_pair_is_allowed(machine):
    """asyncio's self-pipe and multiprocessing.Pipe are stream pairs; a datagram pair's sendto reaches any
    pathname datagram socket on the machine (measured), and a stream pair answers EISCONN to an address."""
    name, column, program = machine
    nr, arch = SOCKETPAIR[column], AUDIT[name]
    for kind in (SOCK_STREAM, SOCK_STREAM | SOCK_CLOEXEC, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC):
        assert run_filter(program, nr, arch, args=(AF_UNIX, kind, 0)) == ALLOW, kind
    for family, kind in ((AF_UNIX, SOCK_DGRAM), (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC), (AF_UNIX, SOCK_SEQPACKET),
                         (AF_INET, SOCK_STREAM), (AF_INET6, SOCK_STREAM), (AF_NETLINK, SOCK_DGRAM),
                         (AF_UNIX | 1 << 32, SOCK_DGRAM), (AF_UNIX, SOCK_DGRAM | 1 << 32)):
        assert run_filter(program, nr, arch, args=(family, kind, 0)) == EPERM, (family, kind)


def test_threads_start_and_processes_do_not(machine):
    name, column, program = machine
    arch = AUDIT[name]
    assert run_filter(program, CLONE[column], arch, args=(THREAD_FLAGS,)) == ALLOW
    for flags in (17, 0x01200011, CLONE_VM | 17, 0x10000000 | 17):  # fork as glibc makes it (SIGCHLD), vfork-like, a user namespace
        assert run_filter(program, CLONE[column], arch, args=(flags,)) == EPERM, hex(flags)
    assert run_filter(program, CLONE3[column], arch) == ENOSYS  # glibc then falls back to clone for threads


def test_no_thread_starts_in_a_namespace_of_its_own(machine):
    """clone's rule let CLONE_THREAD through with any namespace flag: the trial put threads in new network,
    mount, UTS and cgroup namespaces. Refused with and without the process rules."""
    name, column, program = machine
    arch = AUDIT[name]
    without = kernel_rules.filter_instructions(name, processes=False)
    for flag in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000):
        assert run_filter(program, CLONE[column], arch, args=(THREAD_FLAGS | flag,)) == EPERM, hex(flag)
        assert run_filter(without, CLONE[column], arch, args=(17 | flag,)) == EPERM, hex(flag)
    assert run_filter(without, CLONE[column], arch, args=(THREAD_FLAGS,)) == ALLOW


def test_without_the_process_rules_every_other_rule_stays(machine):
    """The process-tree cleanup tests fork under the filter; sockets and tracing stay refused there too."""
    name, column, _ = machine
    program = kernel_rules.filter_instructions(name, processes=False)
    arch = AUDIT[name]
    assert run_filter(program, CLONE[column], arch, args=(17,)) == ALLOW
    assert run_filter(program, CLONE3[column], arch) == ALLOW
    assert run_filter(program, REFUSED["socket"][column], arch, args=(AF_INET, SOCK_DGRAM)) == EPERM
    assert run_filter(program, REFUSED["ptrace"][column], arch) == EPERM
    assert run_filter(program, SOCKETPAIR[column], arch, args=(AF_UNIX, SOCK_DGRAM)) == EPERM


def test_calls_of_another_abi_are_refused(machine):
    """i386's int 0x80 has socketcall (102), which reaches every socket call under other numbers; x32 calls carry
    x86-64's AUDIT_ARCH with bit 30 set; a 32-bit arm task has its own table."""
    name, column, program = machine
    for arch in (AUDIT_I386, AUDIT_ARM, 0):
        assert run_filter(program, 102, arch) == EPERM
        assert run_filter(program, ALLOWED["read"][column], arch) == EPERM
    if name == "x86_64":
        assert run_filter(program, 0x40000000 | 41, AUDIT[name]) == EPERM
        assert run_filter(program, 0x40000000 | 0, AUDIT[name]) == EPERM  # x32's read: the whole ABI goes


def test_only_the_terminal_typing_ioctls_are_refused(machine):
    name, column, program = machine
    arch = AUDIT[name]
    for request in (0x5412, 0x541C, 1 << 32 | 0x5412):  # TIOCSTI, TIOCLINUX; the kernel reads a 32-bit request
        assert run_filter(program, IOCTL[column], arch, args=(0, request)) == EPERM, hex(request)
    for request in (0x5401, 0x5413, 0x541B, 0x5421):  # TCGETS (isatty), TIOCGWINSZ, FIONREAD, FIONBIO
        assert run_filter(program, IOCTL[column], arch, args=(0, request)) == ALLOW, hex(request)


def test_no_network_device_ioctl_passes(machine):
    """The allowed socket pair reached the machine's interfaces through SIOC* requests (the fourth trial read
    eth0's flags; root could set them, or an MTU, past the guard from plain Python): every request of type 0x89
    (interfaces, routes, ARP, bridges, SIOCUNIXFILE, device-private) and 0x8B (wireless) is refused."""
    name, column, program = machine
    arch = AUDIT[name]
    for request in (0x8913, 0x8914, 0x8922, 0x8912, 0x890B, 0x8953, 0x8940, 0x89E0, 0x89F0, 0x8B01, 0x8B1A,
                    1 << 32 | 0x8914):
        assert run_filter(program, IOCTL[column], arch, args=(3, request)) == EPERM, hex(request)


def test_only_device_nodes_are_refused(machine):
    name, column, program = machine
    arch = AUDIT[name]
    fifo, regular, char, block = 0o010644, 0o100644, 0o020644, 0o060644
    calls = [(MKNODAT[column], 2)] + ([(MKNOD[column], 1)] if MKNOD[column] is not None else [])
    for nr, position in calls:
        for mode, verdict in ((fifo, ALLOW), (regular, ALLOW), (char, EPERM), (block, EPERM)):
            args = [0, 0, 0]
            args[position] = mode
            assert run_filter(program, nr, arch, args=args) == verdict, (nr, oct(mode))


def test_only_folders_their_owner_can_list_are_made(machine):
    """A folder made 0o300 could be written into and not listed: a grader that is not root could neither count,
    measure nor remove it, and 241 MB with every hidden input stayed in /tmp (issue 40's attacker trial)."""
    name, column, program = machine
    arch = AUDIT[name]
    calls = [(MKDIRAT[column], 2)] + ([(MKDIR[column], 1)] if MKDIR[column] is not None else [])
    for nr, position in calls:
        for mode, verdict in ((0o777, ALLOW), (0o755, ALLOW), (0o700, ALLOW), (0o1777, ALLOW), (0o300, EPERM),
                              (0o500, EPERM), (0o600, EPERM), (0o000, EPERM), (0o077, EPERM)):
            args = [0, 0, 0]
            args[position] = mode
            assert run_filter(program, nr, arch, args=args) == verdict, (nr, oct(mode))


def test_the_signal_owner_ioctls_are_refused(machine):
    """FIOSETOWN and SIOCSPGRP set the process SIGIO goes to, as F_SETOWN does: from pure Python they killed the
    grader and a whole batch where Landlock has no signal scope (the trial). Reading the owner (FIOGETOWN, 0x8903)
    went with the rest of type 0x89 (test_no_network_device_ioctl_passes)."""
    name, column, program = machine
    arch = AUDIT[name]
    for request in (0x8901, 0x8902):
        assert run_filter(program, IOCTL[column], arch, args=(3, request)) == EPERM, hex(request)


def test_the_module_and_this_table_agree_on_every_number():
    """Each call the module refuses has the number this file has for it (a second reading of the kernel's tables)."""
    for name, column in MACHINES:
        numbers = kernel_rules.ARCHITECTURES[name][2]
        for call, pair in REFUSED.items():
            assert numbers.get(call) == pair[column], (name, call)


def test_every_rule_of_the_module_is_in_this_table():
    """So that each call the module refuses, pretends or reads the arguments of has its number checked against a
    second reading."""
    assert sorted(set(kernel_rules.REFUSED_CALLS + kernel_rules.PROCESS_CALLS) - set(REFUSED)) == []
    assert sorted(kernel_rules.PRETENDED_CALLS) == sorted(PRETENDED)
    assert sorted(kernel_rules.SELF_ONLY) == sorted(SELF_CALLS)
    for name, column in MACHINES:
        numbers = kernel_rules.ARCHITECTURES[name][2]
        for table in (PRETENDED, SELF_CALLS, {"prctl": PRCTL, "fcntl": FCNTL, "mkdirat": MKDIRAT, "mkdir": MKDIR,
                                              "setsockopt": SETSOCKOPT, "clone": CLONE}):
            for call, pair in table.items():
                assert numbers.get(call) == pair[column], (name, call)


@pytest.mark.parametrize("call", sorted(PRETENDED))
def test_mode_and_time_changes_succeed_without_running(machine, call):
    name, column, program = machine
    if PRETENDED[call][column] is None:
        pytest.skip(f"{name} has no {call} system call")
    assert run_filter(program, PRETENDED[call][column], AUDIT[name], args=(3, 0o644, 0)) == kernel_rules.SECCOMP_RET_ERRNO


def test_file_attribute_ioctls_are_refused(machine):
    """FS_IOC_SETFLAGS made a scratch file immutable and outlived the grader's cleanup (the trial); FIFREEZE
    freezes a file system; the requests a solution may use (terminals, FIONBIO, sockets) stay."""
    name, column, program = machine
    arch = AUDIT[name]
    refused = (0x40086602, 0x40046602, 0x80086601, 0x40087602, 0x401C5820, 0xC0045877, 0x40049409, 0x41009432,
               0x6685)  # SETFLAGS (64, 32-bit), GETFLAGS, SETVERSION, FSSETXATTR, FIFREEZE, FICLONE, SETFSLABEL, verity
    for request in refused:
        assert run_filter(program, IOCTL[column], arch, args=(3, request)) == EPERM, hex(request)
    for request in (0x5421, 0x5451, 0x5401, 0x5413, 0x5452):  # FIONBIO, FIOCLEX, TCGETS, TIOCGWINSZ, FIOASYNC
        assert run_filter(program, IOCTL[column], arch, args=(3, request)) == ALLOW, hex(request)


def test_prctl_and_fcntl_rules(machine):
    """PR_SET_NAME wrote into /proc/<pid>/comm, which any process reads (the trial): it succeeds, unrun; PR_SET_MM
    (root) is refused; F_SETOWN aims SIGIO at any process; F_SETLEASE makes any process opening a readable file for
    writing wait for the worker; record locks hold any readable file and F_NOTIFY watches any folder, as flock and
    inotify do; reading a lock or a lease stays. setsockopt's SO_SNDBUFFORCE and SO_RCVBUFFORCE let one pair queue
    1.5 GB past the address-space limit (the fourth trial); other options stay."""
    name, column, program = machine
    arch = AUDIT[name]
    assert run_filter(program, PRCTL[column], arch, args=(15, 0)) == kernel_rules.SECCOMP_RET_ERRNO
    assert run_filter(program, PRCTL[column], arch, args=(35, 0)) == EPERM
    assert run_filter(program, PRCTL[column], arch, args=(22, 2)) == EPERM  # PR_SET_SECCOMP: a filter of its own
    for option in (38, 36, 21, 16):  # NO_NEW_PRIVS, CHILD_SUBREAPER, GET_SECCOMP, GET_NAME
        assert run_filter(program, PRCTL[column], arch, args=(option, 1)) == ALLOW, option
    for command, verdict in ((8, EPERM), (15, EPERM), (1024, EPERM), (1026, EPERM), (6, EPERM), (7, EPERM),
                             (37, EPERM), (38, EPERM), (1, ALLOW), (2, ALLOW), (3, ALLOW), (4, ALLOW), (5, ALLOW),
                             (36, ALLOW), (1025, ALLOW), (1030, ALLOW), (1031, ALLOW)):
        assert run_filter(program, FCNTL[column], arch, args=(3, command, 0)) == verdict, command
    for level, option, verdict in ((1, 32, EPERM), (1, 33, EPERM), (1, 7, ALLOW), (1, 8, ALLOW), (1, 2, ALLOW),
                                   (6, 32, ALLOW), (0, 33, ALLOW)):  # SNDBUF, RCVBUF, REUSEADDR; TCP's 32; IP's 33
        assert run_filter(program, SETSOCKOPT[column], arch, args=(3, level, option)) == verdict, (level, option)


def test_calls_on_a_process_reach_only_the_worker(machine):
    """setpriority(PRIO_USER, 0) as root renices every root process; the trial reniced another process; kill(-1)
    as root ends every process where Landlock has no signal scope."""
    name, column, program = machine
    arch = AUDIT[name]
    negative = lambda pid: pid & 0xFFFFFFFF | 0xFFFFFFFF00000000  # how an int argument arrives, sign-extended
    others = (1, WORKER + 1, WORKER - 1, negative(-1), negative(-WORKER - 1), WORKER | 1 << 32 | 1)
    for call in ("sched_setaffinity", "prlimit64", "get_robust_list"):
        nr = SELF_CALLS[call][column]
        for pid in (0, WORKER):
            assert run_filter(program, nr, arch, args=(pid, 0, 0)) == ALLOW, (call, pid)
        for pid in others:
            assert run_filter(program, nr, arch, args=(pid, 0, 0)) == EPERM, (call, pid)
    nr = SELF_CALLS["kill"][column]
    for pid in (0, WORKER, negative(-WORKER)):
        assert run_filter(program, nr, arch, args=(pid, 9)) == ALLOW, pid
    for pid in others:
        assert run_filter(program, nr, arch, args=(pid, 0)) == EPERM, pid
    for call in ("tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        nr = SELF_CALLS[call][column]
        assert run_filter(program, nr, arch, args=(WORKER, WORKER + 3, 10)) == ALLOW, call
        for pid in others + (0,):
            assert run_filter(program, nr, arch, args=(pid, WORKER, 10)) == EPERM, (call, pid)
    for call, kind in (("setpriority", 0),):  # PRIO_PROCESS
        nr = SELF_CALLS[call][column]
        for who in (0, WORKER):
            assert run_filter(program, nr, arch, args=(kind, who, 5)) == ALLOW, (call, who)
        for which, who in ((kind, 1), (kind, WORKER + 1), (kind + 1, 0), (2, 0), (kind + 1, WORKER)):
            assert run_filter(program, nr, arch, args=(which, who, 5)) == EPERM, (call, which, who)


def test_the_placeholder_id_sits_where_apply_writes_the_worker_s(machine):
    """The grader builds the program before the fork; the slots say where apply writes the worker's id."""
    name, _, program = machine
    default = kernel_rules.filter_instructions(name)
    slots = kernel_rules.pid_slots(default)
    # One id for each of the 9 calls, and kill's negated id (its own process group).
    assert sorted(negated for _, negated in slots) == [False] * 9 + [True]
    patched = list(default)
    for index, negated in slots:
        code, jt, jf, _ = patched[index]
        patched[index] = (code, jt, jf, (-WORKER if negated else WORKER) & 0xFFFFFFFF)
    assert patched == program
    assert kernel_rules.pid_slots(program) == []


def test_an_unknown_architecture_gets_no_program_and_a_jump_too_long_is_an_error():
    assert kernel_rules.filter_instructions("riscv64") is None and kernel_rules.confinement_filter("s390x") is None
    with pytest.raises(ValueError, match="jump"):
        kernel_rules._assemble([("jeq", 1, "far", None)] + [("ret", 0)] * 300 + [("label", "far"), ("ret", 0)])
    with pytest.raises(ValueError, match="twice"):
        kernel_rules._assemble([("label", "a"), ("ret", 0), ("label", "a"), ("ret", 0)])
    with pytest.raises(ValueError, match="longer than the kernel accepts"):
        kernel_rules._assemble([("ret", 0)] * (kernel_rules.BPF_MAXINSNS + 1))
