"""A terminal for end-to-end tests: a tmux server of its own (its own socket, whatever else runs on
the machine), one window of a chosen size running bash, keys sent and the screen read back."""
import os
import shlex
import subprocess
import time


class TmuxTerminal:
    def __init__(self, directory, name, width, height):
        self.socket = os.path.join(directory, "tmux.sock")
        self.name = name
        self.tmux("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), "bash --norc --noprofile")

    def close(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, check=True).stdout

    def run_script(self, path):
        """Runs a bash script in the window; it should end by echoing "EXIT $?"."""
        self.tmux("send-keys", "-t", self.name, f"clear; bash {shlex.quote(path)}", "Enter")

    def keys(self, *keys):
        self.tmux("send-keys", "-t", self.name, *keys)

    def resize(self, width, height):
        self.tmux("resize-window", "-t", self.name, "-x", str(width), "-y", str(height))

    def screen(self):
        return self.tmux("capture-pane", "-t", self.name, "-p").split("\n")

    def screen_with_colours(self):
        """The screen's rows with their SGR escape sequences (colours, bold, dim)."""
        return self.tmux("capture-pane", "-t", self.name, "-p", "-e").split("\n")

    def history(self):
        """Every row, the scrollback's first: what the user can still scroll back to."""
        return self.tmux("capture-pane", "-t", self.name, "-p", "-S", "-").split("\n")

    def wait_for(self, test, predicate, what, timeout=30.0):
        """The screen's rows once predicate(rows) holds; fails `test` with the screen after `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = self.screen()
            if predicate(rows):
                return rows
            time.sleep(0.1)
        test.fail(f"timed out waiting for {what}; the screen:\n" + "\n".join(self.screen()))


def write_script(path, env, command):
    """A script that exports `env`, runs `command` and echoes its exit status."""
    with open(path, "w") as f:
        f.write("".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items()))
        f.write(command + "\n")
        f.write("echo \"EXIT $?\"\n")
