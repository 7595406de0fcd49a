#include "app/gui/new_tensor.h"

#include <imgui.h>

#include <cstdio>

#include "core/model/layout.h"
#include "core/model/placement_parse.h"
#include "core/plan/teach.h"
#include "views/keys.h"
#include "views/theme.h"
#include "views/ui_probe.h"

namespace ss::app {

Result<Plan> buildPlayground(const NewTensorForm& form) {
  auto field = [](const char* name, const std::string& text, const Error& e) {
    return Error{std::string(name) + " '" + text + "': " + e.toString()};
  };
  auto shape = parseShape(form.shape);
  if (!shape) return field("shape", form.shape, shape.error());
  if (!shapeWithinLimits(*shape)) return Error{"shape '" + form.shape + "': a size is above 2^53 or the tensor above 2^62 elements"};
  const DType dt = dtypeFromName(form.dtype);
  if (dt == DType::Unknown) return Error{"dtype '" + form.dtype + "': unknown dtype (f32, bf16, f16, f64, i64, ...)"};
  auto mesh = DeviceMesh::parse(form.mesh, form.names);
  if (!mesh) return field("mesh", form.mesh, mesh.error());
  if (mesh->size() > kMaxTeachRanks)
    return Error{"mesh '" + form.mesh + "': " + std::to_string(mesh->size()) + " ranks; the playground shows at most " +
                 std::to_string(kMaxTeachRanks)};
  const TensorMeta meta{*shape, dt, true};
  auto spec = parseSpec(form.placements, ParseContext{&*mesh, meta.rank()});
  if (!spec) return field("placements", form.placements, spec.error());
  return makePlayground(meta, *mesh, *spec);
}

namespace {
bool textField(const char* label, std::string& value, const char* probe) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s", value.c_str());
  ImGui::SetNextItemWidth(260);
  const bool changed = ImGui::InputText(label, buf, sizeof buf);
  views::probeItem(probe);
  if (changed) value = buf;
  return changed;
}
}  // namespace

NewTensorAction drawNewTensorForm(NewTensorForm& form, bool canReplace) {
  ImGui::TextUnformatted("One tensor on a device mesh, to teach layouts without a file.");
  textField("shape", form.shape, "newtensor.shape");
  textField("dtype", form.dtype, "newtensor.dtype");
  textField("mesh", form.mesh, "newtensor.mesh");
  textField("mesh dim names", form.names, "newtensor.names");
  textField("placements", form.placements, "newtensor.placements");
  ImGui::TextDisabled("any notation: RS(1), (Replicate(), Shard(dim=1)), [R, S1], P(None, 'tp') ...");
  const Result<Plan> plan = buildPlayground(form);
  const views::Palette& pal = views::palette();
  if (!plan) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.error), "%s", plan.error().message.c_str());
  } else {
    const ShardingSpec& s = *plan->specs[kPlaygroundTensor].outputs[0];
    const int rank = plan->graph.nodes[kPlaygroundTensor].outputs[0].rank();
    ImGui::Text("mesh-centric %s   tensor-centric %s", s.toMeshString().c_str(), s.toTensorString(rank).c_str());
    ImGui::Text("DTensor %s%s", s.toLongString().c_str(),
                plan->mesh.hasNames() ? ("   JAX " + s.toJaxString(rank, plan->mesh)).c_str() : "");
  }
  if (!canReplace) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.warning),
                       "The open plan has unsaved edits: save or undo them first.");
  }
  NewTensorAction action = NewTensorAction::None;
  ImGui::BeginDisabled(!plan.ok() || !canReplace);
  // Enter confirms (views/keys.h Action::Confirm), as Create does: only when the form is right.
  if (ImGui::Button("Create") || (plan.ok() && canReplace && !ImGui::IsWindowAppearing() && views::keys::actionPressed(views::keys::Action::Confirm)))
    action = NewTensorAction::Create;
  views::probeItem("newtensor.create");
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) action = NewTensorAction::Cancel;
  views::probeItem("newtensor.cancel");
  return action;
}

}  // namespace ss::app
