// The MPI tools interface (MPI_T). Control variables: every RAILMPI_* setting (base/settings.hpp),
// read-only (a setting is read once, at MPI_Init), its value as text (MPI_CHAR). Performance
// variables: the progress engine's counts of yields and sleeps, and the messages received and not
// yet matched. One category holds them all. MPI_T works before MPI_Init and after MPI_Finalize:
// the settings then come from the environment, the performance variables read 0.
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "api/instance.hpp"
#include "api/tools_interface.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

struct PerformanceVariable {
  const char* name;
  int var_class;
  const char* desc;
};

constexpr PerformanceVariable kPvars[] = {
    {"railmpi_yields", MPI_T_PVAR_CLASS_COUNTER,
     "Yields of the core made by this rank's waits (progress engine: with more ranks than cores, or after the "
     "spin of a wait)."},
    {"railmpi_sleeps", MPI_T_PVAR_CLASS_COUNTER,
     "Sleeps in the kernel made by this rank's waits (the devices' wait: a sender wakes the rank)."},
    {"railmpi_unexpected_messages", MPI_T_PVAR_CLASS_LEVEL,
     "Messages this rank has received that no receive has matched yet."},
};
constexpr int kNumPvars = sizeof kPvars / sizeof kPvars[0];
constexpr const char* kCategory = "railmpi";
constexpr const char* kCategoryDesc =
    "RailMPI's RAILMPI_* settings (control variables) and its progress engine's counts (performance variables).";

ToolsState* tools() { return library_state().tools.get(); }

int num_cvars() { return static_cast<int>(base::setting_specs().size()); }

// MPI_T's string convention: *len holds the buffer's size on input (0: nothing is written) and the
// string's length with its NUL on return; a longer string is cut to fit.
void put_string(std::string_view s, char* buf, int* len) {
  if (!len) return;
  if (buf && *len > 0) {
    const std::size_t n = std::min(s.size(), static_cast<std::size_t>(*len - 1));
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
  }
  *len = static_cast<int>(s.size()) + 1;
}

// A setting's value in force: the running instance's, else the environment's (read at MPI_T_init).
std::string cvar_value(int index) {
  const std::string_view name = base::setting_specs()[std::size_t(index)].name;
  LibraryState& state = library_state();
  if (state.phase == Phase::running) return state.instance->settings.value_text(name);
  return tools()->settings.value_text(name);
}

std::uint64_t pvar_value(int index) {
  LibraryState& state = library_state();
  if (state.phase != Phase::running) return 0;
  Instance& in = *state.instance;
  switch (index) {
    case 0: return in.progress->yields();
    case 1: return in.progress->sleeps();
    default: return in.p2p->unexpected_count();
  }
}

bool counter(int index) { return kPvars[index].var_class == MPI_T_PVAR_CLASS_COUNTER; }

bool live_session(MPI_T_pvar_session session) {
  if (!session) return false;
  for (const auto& s : tools()->sessions)
    if (s.get() == session) return true;
  return false;
}

bool live_pvar_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  for (const auto& h : session->handles)
    if (h.get() == handle) return true;
  return false;
}

// The checks every MPI_T_pvar_* call on one handle makes.
int check_pvar_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!live_session(session)) return MPI_T_ERR_INVALID_SESSION;
  if (handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
  if (!handle || !live_pvar_handle(session, handle)) return MPI_T_ERR_INVALID_HANDLE;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_T_init_thread(int required, int* provided) {
  LibraryState& state = library_state();
  if (!state.tools) {
    state.tools = std::make_unique<ToolsState>();
    state.tools->settings = base::Settings::from_environment();
  }
  ++state.tools->initialized;
  if (provided) *provided = std::clamp(required, MPI_THREAD_SINGLE, MPI_THREAD_SERIALIZED);
  return MPI_SUCCESS;
}
#pragma weak MPI_T_init_thread = PMPI_T_init_thread

int PMPI_T_finalize(void) {
  LibraryState& state = library_state();
  if (!state.tools) return MPI_T_ERR_NOT_INITIALIZED;
  if (--state.tools->initialized == 0) state.tools.reset();  // its handles and sessions go with it
  return MPI_SUCCESS;
}
#pragma weak MPI_T_finalize = PMPI_T_finalize

// ---- control variables ----

int PMPI_T_cvar_get_num(int* num_cvar) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!num_cvar) return MPI_ERR_ARG;
  *num_cvar = num_cvars();
  return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num

int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                         MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (cvar_index < 0 || cvar_index >= num_cvars()) return MPI_T_ERR_INVALID_INDEX;
  const base::SettingSpec& spec = base::setting_specs()[std::size_t(cvar_index)];
  put_string(spec.name, name, name_len);
  put_string(spec.meaning, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (datatype) *datatype = MPI_CHAR;
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (scope) *scope = MPI_T_SCOPE_READONLY;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info

int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!name || !cvar_index) return MPI_ERR_ARG;
  const auto specs = base::setting_specs();
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name == name) {
      *cvar_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}
#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index

int PMPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle, int* count) {
  (void)obj_handle;  // MPI_T_BIND_NO_OBJECT: ignored
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (cvar_index < 0 || cvar_index >= num_cvars()) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_ERR_ARG;
  auto h = std::make_unique<MPIR_T_cvar_handle_s>(MPIR_T_cvar_handle_s{cvar_index});
  *handle = h.get();
  *count = static_cast<int>(cvar_value(cvar_index).size()) + 1;  // characters with the NUL
  tools()->cvar_handles.push_back(std::move(h));
  return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!handle) return MPI_ERR_ARG;
  auto& handles = tools()->cvar_handles;
  const auto it = std::find_if(handles.begin(), handles.end(), [&](const auto& h) { return h.get() == *handle; });
  if (it == handles.end()) return MPI_T_ERR_INVALID_HANDLE;
  handles.erase(it);
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  const auto& handles = tools()->cvar_handles;
  if (!handle ||
      std::none_of(handles.begin(), handles.end(), [&](const auto& h) { return h.get() == handle; }))
    return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_ERR_ARG;
  const std::string v = cvar_value(handle->index);
  std::memcpy(buf, v.c_str(), v.size() + 1);
  return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  (void)buf;
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  const auto& handles = tools()->cvar_handles;
  if (!handle ||
      std::none_of(handles.begin(), handles.end(), [&](const auto& h) { return h.get() == handle; }))
    return MPI_T_ERR_INVALID_HANDLE;
  return MPI_T_ERR_CVAR_SET_NEVER;  // settings are read once, at MPI_Init (set them in the environment)
}
#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write

// ---- performance variables ----

int PMPI_T_pvar_get_num(int* num_pvar) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!num_pvar) return MPI_ERR_ARG;
  *num_pvar = kNumPvars;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num

int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                         MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
                         int* readonly, int* continuous, int* atomic) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (pvar_index < 0 || pvar_index >= kNumPvars) return MPI_T_ERR_INVALID_INDEX;
  const PerformanceVariable& p = kPvars[pvar_index];
  put_string(p.name, name, name_len);
  put_string(p.desc, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (var_class) *var_class = p.var_class;
  if (datatype) *datatype = MPI_UNSIGNED_LONG_LONG;
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly) *readonly = 1;
  if (continuous) *continuous = 1;
  if (atomic) *atomic = 0;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info

int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!name || !pvar_index) return MPI_ERR_ARG;
  for (int i = 0; i < kNumPvars; ++i) {
    if (var_class == kPvars[i].var_class && std::strcmp(name, kPvars[i].name) == 0) {
      *pvar_index = i;
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}
#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index

int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!session) return MPI_ERR_ARG;
  tools()->sessions.push_back(std::make_unique<MPIR_T_pvar_session_s>());
  *session = tools()->sessions.back().get();
  return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create

int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!session || !live_session(*session)) return MPI_T_ERR_INVALID_SESSION;
  auto& sessions = tools()->sessions;
  sessions.erase(std::find_if(sessions.begin(), sessions.end(), [&](const auto& s) { return s.get() == *session; }));
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* obj_handle, MPI_T_pvar_handle* handle,
                             int* count) {
  (void)obj_handle;
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!live_session(session)) return MPI_T_ERR_INVALID_SESSION;
  if (pvar_index < 0 || pvar_index >= kNumPvars) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_ERR_ARG;
  auto h = std::make_unique<MPIR_T_pvar_handle_s>();
  h->index = pvar_index;
  h->session = session;
  h->base = counter(pvar_index) ? pvar_value(pvar_index) : 0;  // a counter reads 0 at allocation
  *handle = h.get();
  *count = 1;
  session->handles.push_back(std::move(h));
  return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  if (!handle) return MPI_ERR_ARG;
  if (*handle == MPI_T_PVAR_ALL_HANDLES) return MPI_T_ERR_INVALID_HANDLE;
  if (int e = check_pvar_handle(session, *handle)) return e;
  auto& handles = session->handles;
  handles.erase(std::find_if(handles.begin(), handles.end(), [&](const auto& h) { return h.get() == *handle; }));
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free

// Continuous variables: they cannot be started or stopped.
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  if (int e = check_pvar_handle(session, handle)) return e;
  return handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_STARTSTOP;
}
#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  if (int e = check_pvar_handle(session, handle)) return e;
  return handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_STARTSTOP;
}
#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  if (handle == MPI_T_PVAR_ALL_HANDLES) return MPI_T_ERR_INVALID_HANDLE;
  if (int e = check_pvar_handle(session, handle)) return e;
  if (!buf) return MPI_ERR_ARG;
  const std::uint64_t v = pvar_value(handle->index) - handle->base;
  const auto out = static_cast<unsigned long long>(v);
  std::memcpy(buf, &out, sizeof out);
  return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  (void)buf;
  if (handle == MPI_T_PVAR_ALL_HANDLES) return MPI_T_ERR_INVALID_HANDLE;
  if (int e = check_pvar_handle(session, handle)) return e;
  return MPI_T_ERR_PVAR_NO_WRITE;
}
#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write

// A counter starts again from 0; a level cannot be reset (read-only).
int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  if (int e = check_pvar_handle(session, handle)) return e;
  if (handle == MPI_T_PVAR_ALL_HANDLES) {
    for (auto& h : session->handles)
      if (counter(h->index)) h->base = pvar_value(h->index);
    return MPI_SUCCESS;
  }
  if (!counter(handle->index)) return MPI_T_ERR_PVAR_NO_WRITE;
  handle->base = pvar_value(handle->index);
  return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  if (int e = PMPI_T_pvar_read(session, handle, buf)) return e;
  if (!counter(handle->index)) return MPI_T_ERR_PVAR_NO_WRITE;
  handle->base = pvar_value(handle->index);
  return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset

// ---- categories and enumerations ----

int PMPI_T_category_get_num(int* num_cat) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!num_cat) return MPI_ERR_ARG;
  *num_cat = 1;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num

int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars_out,
                             int* num_pvars, int* num_categories) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  put_string(kCategory, name, name_len);
  put_string(kCategoryDesc, desc, desc_len);
  if (num_cvars_out) *num_cvars_out = num_cvars();
  if (num_pvars) *num_pvars = kNumPvars;
  if (num_categories) *num_categories = 0;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info

int PMPI_T_category_get_index(const char* name, int* cat_index) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!name || !cat_index) return MPI_ERR_ARG;
  if (std::strcmp(name, kCategory) != 0) return MPI_T_ERR_INVALID_NAME;
  *cat_index = 0;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  if (len > 0 && !indices) return MPI_ERR_ARG;
  for (int i = 0; i < std::min(len, num_cvars()); ++i) indices[i] = i;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  if (len > 0 && !indices) return MPI_ERR_ARG;
  for (int i = 0; i < std::min(len, kNumPvars); ++i) indices[i] = i;
  return MPI_SUCCESS;
}
#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars

int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  (void)len;
  (void)indices;
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  return cat_index == 0 ? MPI_SUCCESS : MPI_T_ERR_INVALID_INDEX;  // no subcategories
}
#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories

int PMPI_T_category_changed(int* update_number) {
  if (!tools()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!update_number) return MPI_ERR_ARG;
  *update_number = 0;  // the variables never change
  return MPI_SUCCESS;
}
#pragma weak MPI_T_category_changed = PMPI_T_category_changed

// No variable is of an enumerated type.
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  (void)enumtype;
  (void)num;
  (void)name;
  (void)name_len;
  return tools() ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_NOT_INITIALIZED;
}
#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int* value, char* name, int* name_len) {
  (void)enumtype;
  (void)indx;
  (void)value;
  (void)name;
  (void)name_len;
  return tools() ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_NOT_INITIALIZED;
}
#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item

}  // extern "C"
