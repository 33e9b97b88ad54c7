#pragma once
// The commands that read a config file, and sets of them: each configuration key names the
// commands that read it, and `faraday COMMAND --help` lists those keys.

namespace faraday {

enum class Command : unsigned { Run = 1u, Rerun = 2u, Map = 4u };

/// The name after `faraday`: "run", "rerun", "map".
inline const char* commandName(Command c) {
  return c == Command::Run ? "run" : c == Command::Rerun ? "rerun" : "map";
}

/// A set of commands (those that read a key).
struct CommandSet {
  unsigned bits = 0;
  constexpr bool contains(Command c) const { return (bits & unsigned(c)) != 0; }
};

constexpr CommandSet operator|(CommandSet a, Command b) { return {a.bits | unsigned(b)}; }
constexpr CommandSet operator|(Command a, Command b) { return CommandSet{unsigned(a)} | b; }
/// The set of `c` alone.
constexpr CommandSet only(Command c) { return {unsigned(c)}; }

}  // namespace faraday
