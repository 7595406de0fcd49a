#pragma once
// File > New tensor...: the playground's form (shape, dtype, mesh, dim names, placements in any notation).
// `buildPlayground` turns the form into a playground plan (ss::makePlayground) or says, in one line, which field
// is wrong and where; the dialog shows that line live, and both notations of the placements.
#include <string>

#include "core/model/plan.h"
#include "core/model/result.h"

namespace ss::app {

struct NewTensorForm {
  std::string shape = "8,6";
  std::string dtype = "bf16";
  std::string mesh = "2x4";
  std::string names = "dp,tp";
  std::string placements = "RS(1)";
};

// "placements 'RS(x)': expected ... (column 4)" on error.
Result<Plan> buildPlayground(const NewTensorForm& form);

enum class NewTensorAction : uint8_t { None, Create, Cancel };
// The form's widgets (inside the modal). `canReplace` false: the open plan has unsaved edits, Create is off.
NewTensorAction drawNewTensorForm(NewTensorForm& form, bool canReplace);

}  // namespace ss::app
