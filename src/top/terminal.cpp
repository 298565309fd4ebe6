#include "top/terminal.h"

#include <curses.h>
#include <langinfo.h>
#include <termios.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <clocale>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/gpu_palette.h"
#include "render/top/ascii_glyphs.h"

namespace gpuwatch {

static_assert(kKeyResize == KEY_RESIZE);

namespace {

volatile std::sig_atomic_t g_stop = 0;
struct termios g_saved_modes {};
bool g_have_saved_modes = false;
// The write end of the pipe the screen loop polls: a stop signal that comes
// while the loop draws still wakes its next poll().
int g_wake_write_fd = -1;

void on_stop_signal(int) {
  g_stop = 1;
  if (g_wake_write_fd >= 0) WakePipe::notify(g_wake_write_fd);
}

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

constexpr std::array kCrashSignals{SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
// Ctrl-\ (SIGQUIT) too: its default action would leave the screen as it is.
constexpr std::array kStopSignals{SIGINT, SIGTERM, SIGHUP, SIGQUIT};
// What was installed before, given back on the way out (SIGHUP stays
// ignored under nohup).
std::array<struct sigaction, kCrashSignals.size() + kStopSignals.size()> g_previous{};

void install(std::size_t slot, int sig, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a waiting poll() wakes up with EINTR
  ::sigaction(sig, &action, &g_previous[slot]);
}

void install_handlers() {
  std::size_t slot = 0;
  for (int sig : kCrashSignals) install(slot++, sig, on_crash_signal);
  for (int sig : kStopSignals) install(slot++, sig, on_stop_signal);
}

void restore_handlers() {
  std::size_t slot = 0;
  for (int sig : kCrashSignals) ::sigaction(sig, &g_previous[slot++], nullptr);
  for (int sig : kStopSignals) ::sigaction(sig, &g_previous[slot++], nullptr);
}

// UTF-8 for the block and braille graphs: the user's locale, else C.UTF-8
// (CUDA containers often set no LANG at all). False when neither is UTF-8.
bool utf8_locale() {
  std::setlocale(LC_ALL, "");
  if (std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0) return true;
  return std::setlocale(LC_CTYPE, "C.UTF-8") != nullptr && std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

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

// The GPU colours' pairs follow the styles' six.
constexpr short kFirstGpuPair = 7;

// One level of the xterm 256-colour cube's six (0, 95, 135, 175, 215, 255)
// nearest to an 8-bit channel.
int cube_level(std::uint32_t channel) {
  if (channel < 48) return 0;
  if (channel < 115) return 1;
  return static_cast<int>((channel - 35) / 40);
}

// GPU `slot`'s colour (core/gpu_palette.h) as the terminal can show it: the
// nearest colour of the 256-colour cube, or on an 8-colour terminal the
// basic colour chosen by hand for each (the nearest by distance would make
// bluish green and sky blue both cyan). Black becomes the terminal's own
// foreground (-1): on the dark background most terminals have, it would not
// show.
short gpu_colour(std::size_t slot, int colours) {
  const std::uint32_t rgb = gpu_palette_rgb(slot);
  if (rgb == 0) return -1;
  if (colours >= 256) {
    return static_cast<short>(16 + 36 * cube_level(rgb >> 16 & 0xff) + 6 * cube_level(rgb >> 8 & 0xff) +
                              cube_level(rgb & 0xff));
  }
  static constexpr std::array<short, kGpuStyleCount> kBasic{COLOR_BLUE,    COLOR_YELLOW, COLOR_GREEN, COLOR_RED,
                                                            COLOR_MAGENTA, COLOR_CYAN,   -1,          COLOR_WHITE};
  return kBasic[slot % kBasic.size()];
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
    if (const int slot = gpu_colour_slot(style); slot >= 0) return a | COLOR_PAIR(kFirstGpuPair + slot);
    if (const short pair = colour_of(style); pair != 0) a |= COLOR_PAIR(pair);
  }
  return a;
}
}  // namespace

void Terminal::require_terminal() {
  if (::isatty(STDIN_FILENO) == 0 || ::isatty(STDOUT_FILENO) == 0) {
    throw std::runtime_error("top needs a terminal; for scripts use `gpuwatch top --once` (--format json)");
  }
}

Terminal::Terminal(const std::string& term, bool no_colour) {
  require_terminal();
  ascii_ = !utf8_locale();
  g_wake_write_fd = wake_.write_fd();
  g_have_saved_modes = ::tcgetattr(STDIN_FILENO, &g_saved_modes) == 0;
  install_handlers();
  // newterm, not initscr: initscr exits the process on an unknown TERM,
  // without unwinding (the sampling threads still running).
  screen_ = newterm(nullptr, stdout, stdin);
  if (screen_ == nullptr) {
    restore_handlers();
    g_wake_write_fd = -1;
    throw std::runtime_error(std::string("cannot drive this terminal (TERM=") + term +
                             "); try TERM=xterm-256color");
  }
  set_term(screen_);
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  set_escdelay(25);  // Esc alone should act at once
  curs_set(0);
  g_colour = has_colors() && !no_colour;
  if (g_colour) {
    start_color();
    use_default_colors();
    init_pair(1, COLOR_GREEN, -1);
    init_pair(2, COLOR_YELLOW, -1);
    init_pair(3, COLOR_RED, -1);
    init_pair(4, COLOR_CYAN, -1);
    init_pair(5, COLOR_MAGENTA, -1);
    init_pair(6, COLOR_BLACK, COLOR_CYAN);
    for (std::size_t slot = 0; slot < kGpuStyleCount; ++slot) {
      init_pair(static_cast<short>(kFirstGpuPair + static_cast<short>(slot)), gpu_colour(slot, COLORS), -1);
    }
  }
}

Terminal::~Terminal() {
  endwin();
  delscreen(screen_);
  restore_handlers();
  g_wake_write_fd = -1;
}

std::size_t Terminal::width() const { return static_cast<std::size_t>(std::max(COLS, 1)); }
std::size_t Terminal::height() const { return static_cast<std::size_t>(std::max(LINES, 1)); }

void Terminal::draw(const Screen& screen) {
  erase();
  for (std::size_t row = 0; row < screen.size() && row < height(); ++row) {
    move(static_cast<int>(row), 0);
    for (const Span& span : screen[row].spans()) {
      attrset(attributes(span.style));
      addstr(ascii_ ? ascii_glyphs(span.text).c_str() : span.text.c_str());
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
