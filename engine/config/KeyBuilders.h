#pragma once
// Builders of the common kinds of configuration key for the table in ConfigKeys.cpp: each
// makes the KeySpec of one Config field, named by its section and member
// (&Config::map, &Config::MapSection::spacing is config.map.spacing), with the conversion,
// the range check and the printing that kind of value takes.
#include <string>
#include <vector>

#include "engine/config/ConfigKeys.h"
#include "engine/formats/TextParse.h"

namespace faraday::config::keys {

/// A range check of a number in `unit` (positive, nonNegative).
using Check = double (*)(double, const char*);

/// A number in `unit`, range-checked by `check`.
template <typename S>
KeySpec number(const char* key, const char* unit, const char* help, CommandSet readBy, S Config::*section,
               double S::*field, Check check) {
  return {key, unit, help, readBy,
          [=](Config& c, const Value& v) { c.*section.*field = check(toDouble(v.text), unit); },
          [=](const Config& c) { return formatNumber(c.*section.*field); }};
}

/// A number of steps (> 0).
template <typename S>
KeySpec steps(const char* key, const char* help, CommandSet readBy, S Config::*section, long long S::*field) {
  return {key, "steps", help, readBy,
          [=](Config& c, const Value& v) { c.*section.*field = positiveInterval(v.text); },
          [=](const Config& c) { return std::to_string(c.*section.*field); }};
}

/// A random seed (an integer >= 0).
template <typename S>
KeySpec seed(const char* key, const char* help, CommandSet readBy, S Config::*section, unsigned long long S::*field) {
  return {key, "", help, readBy,
          [=](Config& c, const Value& v) { c.*section.*field = toSeed(v.text); },
          [=](const Config& c) { return std::to_string(c.*section.*field); }};
}

/// true or false.
template <typename S>
KeySpec flag(const char* key, const char* help, CommandSet readBy, S Config::*section, bool S::*field) {
  return {key, "bool", help, readBy,
          [=](Config& c, const Value& v) { c.*section.*field = toBool(v.text); },
          [=](const Config& c) { return boolText(c.*section.*field); }};
}

/// One of the words of enum E (ChoiceWords, Choices.h), read into its value.
template <typename S, typename E>
KeySpec choice(const char* key, const char* help, CommandSet readBy, S Config::*section, E S::*field) {
  return {key, "", help, readBy,
          [=](Config& c, const Value& v) {
            constexpr auto& words = ChoiceWords<E>::words;
            c.*section.*field = E(oneOf(v.text, words.data(), words.size()));
          },
          [=](const Config& c) { return choiceText(c.*section.*field); }};
}

/// Text as given ("" allowed: an output file turned off).
template <typename S>
KeySpec text(const char* key, const char* help, CommandSet readBy, S Config::*section, std::string S::*field) {
  return {key, "", help, readBy,
          [=](Config& c, const Value& v) { c.*section.*field = v.text; },
          [=](const Config& c) { return c.*section.*field; }};
}

/// A trajectory path, resolved against where it was set ("" allowed).
template <typename S>
KeySpec trajectory(const char* key, const char* help, CommandSet readBy, S Config::*section, std::string S::*field) {
  return {key, "path", help, readBy,
          [=](Config& c, const Value& v) { c.*section.*field = toPath(v).string(); },
          [=](const Config& c) { return c.*section.*field; }};
}

/// A file name that must not be empty.
template <typename S>
KeySpec requiredName(const char* key, const char* help, CommandSet readBy, S Config::*section, std::string S::*field,
                     const char* whatItNames) {
  return {key, "", help, readBy,
          [=](Config& c, const Value& v) {
            if (v.text.empty()) throw BadValue{std::string("must name ") + whatItNames};
            c.*section.*field = v.text;
          },
          [=](const Config& c) { return c.*section.*field; }};
}

/// A tolerance in (0, 1), or in [0, 1) when `zeroAllowed` (0 meaning auto).
template <typename S>
KeySpec fraction(const char* key, const char* help, CommandSet readBy, S Config::*section, double S::*field,
                 bool zeroAllowed) {
  return {key, "", help, readBy,
          [=](Config& c, const Value& v) {
            const double r = toDouble(v.text);
            const bool inside = (zeroAllowed ? r >= 0 : r > 0) && r < 1;
            const char* interval = zeroAllowed ? "[0, 1)" : "(0, 1)";
            if (!inside) throw BadValue{std::string("must be in ") + interval + " (got " + v.text + ")"};
            c.*section.*field = r;
          },
          [=](const Config& c) { return formatNumber(c.*section.*field); }};
}

/// An integer in lo..hi; `range` says so in the error ("in 4..8").
template <typename S, typename T>
KeySpec integer(const char* key, const char* unit, const char* help, CommandSet readBy, S Config::*section, T S::*field,
                long long lo, long long hi, const char* range) {
  return {key, unit, help, readBy,
          [=](Config& c, const Value& v) {
            const long long n = toInteger(v.text);
            if (n < lo || n > hi) throw BadValue{std::string("must be ") + range + " (got " + v.text + ")"};
            c.*section.*field = T(n);
          },
          [=](const Config& c) { return std::to_string(c.*section.*field); }};
}

}  // namespace faraday::config::keys
