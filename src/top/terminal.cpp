#include "top/terminal.h"

#include <curses.h>
#include <termios.h>
#include <unistd.h>

#include <array>
#include <clocale>
#include <csignal>
#include <cstdlib>
#include <stdexcept>

namespace gpuwatch {

static_assert(kKeyResize == KEY_RESIZE);

namespace {

volatile std::sig_atomic_t g_stop = 0;
struct termios g_saved_modes {};
bool g_have_saved_modes = false;

void on_stop_signal(int) { g_stop = 1; }

// Runs on a crash: only async-signal-safe calls. Leaves the alternate
// screen, shows the cursor, resets attributes, restores the saved modes, and
// lets the default action (a core dump) happen.
void on_crash_signal(int sig) {
  static constexpr char kReset[] = "\033[0m\033[?25h\033[?1049l\r\n";
  [[maybe_unused]] const auto n = ::write(STDOUT_FILENO, kReset, sizeof kReset - 1);
  if (g_have_saved_modes) ::tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_modes);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install(int sig, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a waiting poll() wakes up with EINTR
  ::sigaction(sig, &action, nullptr);
}

constexpr std::array kCrashSignals{SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// ncurses colour pair per style; 0 is the terminal's default.
short colour_of(Style style) {
  switch (style) {
    case Style::Good:
    case Style::GraphUtil: return 1;
    case Style::Warn:
    case Style::GraphPower: return 2;
    case Style::Bad: return 3;
    case Style::GraphMemory:
    case Style::Title: return 4;
    case Style::GraphTemp: return 5;
    case Style::Selected: return 6;
    default: return 0;
  }
}

}  // namespace

namespace {
bool g_colour = false;

attr_t attributes(Style style) {
  attr_t a = A_NORMAL;
  switch (style) {
    case Style::Header: a = A_REVERSE; break;
    case Style::Selected: a = g_colour ? A_BOLD : A_REVERSE | A_BOLD; break;
    case Style::Title: a = A_BOLD; break;
    case Style::Dim: a = A_DIM; break;
    case Style::Warn:
    case Style::Bad: a = g_colour ? A_NORMAL : A_BOLD; break;
    default: break;
  }
  if (g_colour) {
    if (const short pair = colour_of(style); pair != 0) a |= COLOR_PAIR(pair);
  }
  return a;
}
}  // namespace

Terminal::Terminal() {
  if (::isatty(STDIN_FILENO) == 0 || ::isatty(STDOUT_FILENO) == 0) {
    throw std::runtime_error("top needs a terminal; for scripts use `gpuwatch top --once` (--format json)");
  }
  std::setlocale(LC_ALL, "");  // UTF-8 block characters
  g_have_saved_modes = ::tcgetattr(STDIN_FILENO, &g_saved_modes) == 0;
  for (int sig : kCrashSignals) install(sig, on_crash_signal);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) install(sig, on_stop_signal);
  if (initscr() == nullptr) throw std::runtime_error("could not set up the terminal (is TERM right?)");
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  set_escdelay(25);  // Esc alone should act at once
  curs_set(0);
  const char* no_colour = std::getenv("NO_COLOR");
  g_colour = has_colors() && (no_colour == nullptr || *no_colour == '\0');
  if (g_colour) {
    start_color();
    use_default_colors();
    init_pair(1, COLOR_GREEN, -1);
    init_pair(2, COLOR_YELLOW, -1);
    init_pair(3, COLOR_RED, -1);
    init_pair(4, COLOR_CYAN, -1);
    init_pair(5, COLOR_MAGENTA, -1);
    init_pair(6, COLOR_BLACK, COLOR_CYAN);
  }
}

Terminal::~Terminal() {
  endwin();
  for (int sig : kCrashSignals) std::signal(sig, SIG_DFL);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, SIG_DFL);
}

std::size_t Terminal::width() const { return static_cast<std::size_t>(std::max(COLS, 1)); }
std::size_t Terminal::height() const { return static_cast<std::size_t>(std::max(LINES, 1)); }

void Terminal::draw(const Screen& screen) {
  erase();
  for (std::size_t row = 0; row < screen.size() && row < height(); ++row) {
    move(static_cast<int>(row), 0);
    for (const Span& span : screen[row].spans()) {
      attrset(attributes(span.style));
      addstr(span.text.c_str());
    }
  }
  attrset(A_NORMAL);
  refresh();
}

int Terminal::read_key() {
  const int key = getch();
  return key == ERR ? -1 : key;
}

bool Terminal::stop_requested() { return g_stop != 0; }

}  // namespace gpuwatch
