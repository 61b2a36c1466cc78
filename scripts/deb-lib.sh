# SPDX-License-Identifier: GPL-2.0
# Sourced by scripts/stock-kernel and scripts/kheaders: fetch Debian packages and unpack them
# into the project's cache with `apt-get download` and `dpkg-deb -x`, never installing them
# (no root needed, dpkg's database, /boot and /usr/src stay as they were). The caller
# defines say() and die().

# deb_fetch DIR PKG VERSION: print the path of PKG's .deb at VERSION: apt's own archive
# cache's copy when it is there (the epoch's ':' is %3a in its name), else one
# `apt-get download` puts in DIR.
deb_fetch() {
    for f in "/var/cache/apt/archives/${2}_$(echo "$3" | sed 's/:/%3a/')"_*.deb; do
        [ -f "$f" ] || continue
        if [ "$(dpkg-deb -f "$f" Package Version 2>/dev/null | tr '\n' ' ')" = "Package: $2 Version: $3 " ]; then
            say "unpacking $2 $3 from apt's cache ($f)"
            echo "$f"; return 0
        fi
    done
    say "fetching $2 $3 (apt-get download)"
    # as root, apt would try to drop to its _apt user, which cannot write here
    _sandbox=""; [ "$(id -u)" -eq 0 ] && _sandbox="-o APT::Sandbox::User=root"
    # shellcheck disable=SC2086
    (cd "$1" && apt-get download -q=2 $_sandbox "$2=$3") >&2 || die "apt-get download $2=$3 failed"
    ls "$1/${2}_"*.deb
}

# deb_lock DIR: create DIR and hold its lock on fd 9 until the caller exits (one unpack at a
# time: a concurrent caller waits here, then finds the work done).
deb_lock() {
    mkdir -p "$1"
    exec 9>"$1/.lock"
    flock 9
}

# deb_candidate PKG: apt's candidate version of PKG, empty when apt knows none.
deb_candidate() {
    apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '^(none)$' || true
}
