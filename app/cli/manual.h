#pragma once
// The top-level texts, each made from the one verb table (verbRegistry(): every verb's name, summary, help and
// the FlagSpecs its parser is built from), so `--help`, the man page and the shell completion cannot disagree
// with what the parser accepts:
//   usageText()       `shardscope --help`
//   versionText()     `shardscope --version`: version, git revision, the LibTorch the runner was built with, and
//                     the runner this executable would start
//   manPage()         shardscope(1) in man(7) roff: every verb with its usage, description, options and footer
//   bashCompletion()  a bash completion script: verbs, each verb's flags, and the values a flag takes (files for
//                     path-valued flags, the listed choices of a `cpu|cuda` value, nothing for the rest)
// The build writes the man page and the completion with `shardscope --man-page` / `--bash-completion`
// (cmake/install.cmake); they are not in --help.
#include <string>

namespace ss::app {

std::string usageText();
std::string versionText();
std::string manPage();
std::string bashCompletion();

}  // namespace ss::app
