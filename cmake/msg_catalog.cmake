# The English message catalog (audience-web/i18n-en.json, a flat object of
# key -> text) as a C table sorted by key, for libfragmsg's English
# (msg/fv_msg.c): the C side words its texts from the same file the pages
# read, so the two cannot drift (docs/LANGUAGES.md).
file(READ ${IN} json)
string(JSON n LENGTH "${json}")
math(EXPR last "${n} - 1")
set(keys "")
foreach(i RANGE ${last})
  string(JSON k MEMBER "${json}" ${i})
  list(APPEND keys "${k}")
endforeach()
list(SORT keys COMPARE STRING)
set(out "/* generated from ${IN} by cmake/msg_catalog.cmake; do not edit */\n#include <stddef.h>\n")
string(APPEND out "struct fv_msg_entry { const char *key, *text; };\nconst struct fv_msg_entry fv_msg_en_table[] = {\n")
foreach(k IN LISTS keys)
  string(JSON v GET "${json}" "${k}")
  string(REPLACE "\\" "\\\\" v "${v}")
  string(REPLACE "\"" "\\\"" v "${v}")
  string(REPLACE "\n" "\\n" v "${v}")
  string(APPEND out "    {\"${k}\", \"${v}\"},\n")
endforeach()
string(APPEND out "};\nconst size_t fv_msg_en_count = sizeof fv_msg_en_table / sizeof fv_msg_en_table[0];\n")
file(WRITE ${OUT} "${out}")
