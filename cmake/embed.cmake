# Turn a text file into a C source defining `const char NAME[]`.
file(READ ${IN} content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," content "${content}")
file(WRITE ${OUT} "/* generated from ${IN}; do not edit */\nconst char ${NAME}[] = {${content} 0x00};\n")
