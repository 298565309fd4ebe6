"""record --status-line on a real terminal (tmux): the line sits on the bottom row, fits the width,
and the command's output scrolls above it instead of running into it; the terminal is whole again
after."""
import os
import shlex
import shutil
import subprocess
import tempfile
import time
import unittest

from harness import BIN, FAKE_NVML, QUICK

SESSION = f"gw-status-{os.getpid()}"


@unittest.skipUnless(shutil.which("tmux"), "tmux is not installed (scripts/install-deps.sh --tests)")
class StatusLineOnATerminal(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gpuwatch-e2e-tty-")
        self.socket = os.path.join(self.tmp, "tmux.sock")  # a server of its own, whatever else runs

    def tearDown(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, check=True).stdout

    def screen(self):
        return self.tmux("capture-pane", "-t", SESSION, "-p").split("\n")

    def wait_for_screen(self, predicate, what, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = self.screen()
            if predicate(rows):
                return rows
            time.sleep(0.1)
        self.fail(f"timed out waiting for {what}; the screen:\n" + "\n".join(self.screen()))

    def test_the_line_stays_on_the_bottom_row_and_leaves_the_terminal_whole(self):
        script = os.path.join(self.tmp, "run.sh")
        done = os.path.join(self.tmp, "done")
        env = {"GPUWATCH_STORE": os.path.join(self.tmp, "runs.db"), "GPUWATCH_NVML_LIBRARY": FAKE_NVML,
               "FAKE_NVML_SET": QUICK + ";gpu_count=4"}
        with open(script, "w") as f:
            f.write("".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items()))
            # The command prints until told to stop, so the test sees it mid-run however slow the machine.
            f.write(f"{shlex.quote(BIN)} record --status-line --interval 0.1 --no-summary -- "
                    f"bash -c 'i=0; while [ ! -e {done} ]; do i=$((i+1)); echo \"training line $i\"; sleep 0.05; done'\n")
            f.write("echo \"EXIT $?\"\n")
        self.tmux("new-session", "-d", "-s", SESSION, "-x", "80", "-y", "12", "bash --norc --noprofile")
        self.tmux("send-keys", "-t", SESSION, f"clear; bash {shlex.quote(script)}", "Enter")

        def mid_run(rows):
            return rows[11].startswith("GPU ") and sum(r.startswith("training line") for r in rows[:11]) >= 8

        rows = self.wait_for_screen(mid_run, "the status line under 8 lines of output")
        # Four GPUs do not fit 80 columns in the seed's form: the compact one, on the last row only.
        self.assertRegex(rows[11], r"^GPU( \d+%){4} \| VRAM( \d+%){4} \| CPU (\d+%|n/a) \| RAM \d+%$")
        for row in rows[:11]:
            self.assertNotIn("GPU", row)  # never glued to the command's lines
            if row:
                self.assertRegex(row, r"^training line \d+$")
        open(done, "w").close()
        rows = self.wait_for_screen(lambda rows: any(r == "EXIT 0" for r in rows), "the command's end")
        self.assertFalse(any(r.startswith("GPU ") for r in rows), rows)  # the status row was cleared
        # The whole screen scrolls again: 14 lines and the prompt fill all 12 rows (with the
        # bottom row still kept out, "after 5" would be on top and the last row empty).
        self.tmux("send-keys", "-t", SESSION, "clear; for i in $(seq 1 14); do echo after $i; done", "Enter")
        rows = self.wait_for_screen(lambda rows: "after 14" in rows, "output after the run")
        self.assertEqual(rows[0], "after 4", rows)
        self.assertEqual(rows[10], "after 14", rows)


if __name__ == "__main__":
    unittest.main()
