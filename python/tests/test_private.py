"""Nothing shared that should not be: the batches are in a folder only this user may enter, the JVM takes commands
from its standard input alone, and what it publishes it publishes on loopback."""
import os
import stat

import pytest

from stoker import StokerError
from stoker.torch import VideoLoader


def test_the_batches_are_in_the_users_own_folder_and_only_the_user_may_read_them(dataset, tmp_path):
    with VideoLoader(dataset, batch_size=2, frames=4, shm_dir=str(tmp_path)) as loader:
        next(iter(loader))
        file = loader.file
        folder = os.path.dirname(file)
        assert folder == str(tmp_path / f"stoker-{os.getuid()}")
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700 and os.stat(folder).st_uid == os.getuid()
        assert stat.S_IMODE(os.stat(file).st_mode) == 0o600


def test_a_folder_others_may_enter_is_refused_naming_it_and_the_fix(dataset, tmp_path):
    folder = tmp_path / f"stoker-{os.getuid()}"
    folder.mkdir()
    folder.chmod(0o755)   # as another user, or an older version, might have left it
    with pytest.raises(StokerError, match=rf"{folder}: open to others \(rwxr-xr-x; expected rwx------\): chmod 700"):
        with VideoLoader(dataset, batch_size=2, frames=4, shm_dir=str(tmp_path)) as loader:
            len(loader)


def listening_sockets(pid: int):
    """(address, port) of the TCP sockets process ``pid`` listens on, read from /proc."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    found = []
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == "0A" and inode in inodes:   # 0A: LISTEN
                    address, port = local.split(":")
                    found.append((address, int(port, 16)))
    return found


def is_loopback(address_hex: str) -> bool:
    if len(address_hex) == 8:                                   # IPv4, little-endian words: 0100007F is 127.0.0.1
        return address_hex.endswith("7F")
    return address_hex in ("00000000000000000000000001000000",  # ::1
                           "0000000000000000FFFF00000100007F")  # ::ffff:127.0.0.1


def test_the_jvm_listens_on_nothing_and_publishes_on_loopback_only(dataset):
    with VideoLoader(dataset, batch_size=2, frames=4) as loader:
        next(iter(loader))
        assert listening_sockets(loader.pid) == [], "commands come from the parent's pipe alone"
    with VideoLoader(dataset, batch_size=2, frames=4, publish=0) as loader:
        next(iter(loader))
        sockets = listening_sockets(loader.pid)
        assert [port for _, port in sockets] == [loader._hello["publish_port"]]
        assert all(is_loopback(address) for address, _ in sockets), sockets
