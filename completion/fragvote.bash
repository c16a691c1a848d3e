# bash completion for fragvote(1)                        -*- shell-script -*-
#
# Commands and options come from the program's own --help (`fragvote --help`,
# `fragvote COMMAND --help`), so a new option completes without touching this
# file. An option's argument completes by its placeholder in --help (FILE:
# files; the --deck FILE also the installed decks by name) or by the value
# lists below. Installed decks: <dir of the binary>/../share/fragvote/decks.

_fragvote_help_cache=()

# The --help text of "$1 $2" (the program, a command or ""), asked once per shell.
_fragvote_help() {
    local key="$1 $2" i
    for ((i = 0; i < ${#_fragvote_help_cache[@]}; i += 2)); do
        if [[ ${_fragvote_help_cache[i]} == "$key" ]]; then
            printf '%s\n' "${_fragvote_help_cache[i + 1]}"
            return
        fi
    done
    local text
    text=$("$1" ${2:+"$2"} --help 2>/dev/null)
    _fragvote_help_cache+=("$key" "$text")
    printf '%s\n' "$text"
}

_fragvote_commands() {
    _fragvote_help "$1" "" | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p'
}

_fragvote_options() {
    _fragvote_help "$1" "$2" | sed 's/`[^`]*`//g' | grep -oE '(^|[][ ,|(])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[^-]*//' | sort -u
}

# The placeholder after option $3 in the --help of command $2 (FILE, N, ...), or
# nothing when the option takes no argument.
_fragvote_metavar() {
    _fragvote_help "$1" "$2" | grep -oE -- "(^|[ ,])$3 [A-Z][A-Za-z|:\[]*" | head -n 1 | sed 's/.* //'
}

_fragvote_decks() {
    local exe dir
    exe=$(command -v -- "$1" 2>/dev/null) || return
    exe=$(readlink -f -- "$exe") || return
    dir=${exe%/*}/../share/fragvote/decks
    [[ -d $dir ]] || return
    local f
    for f in "$dir"/*.json; do
        [[ -f $f ]] && f=${f##*/} && printf '%s\n' "${f%.json}"
    done
}

# The words that may follow "fragvote $2" by its usage lines: "lab up|set|down|status"
# gives up set down status; placeholders (ID, HOST) and options are not words.
_fragvote_subwords() {
    _fragvote_help "$1" "$2" | sed -n "s/^\(Usage:\)\{0,1\} *fragvote $2 \([^ ]*\).*/\2/p" | tr '|' '\n' |
        grep -E '^[a-z][a-z0-9-]*$' | sort -u
}

_fragvote() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local prog=${COMP_WORDS[0]} cmd="" i
    local commands
    commands=$(_fragvote_commands "$prog" | tr "\n" " ")
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ " "$commands" " == *" ${COMP_WORDS[i]} "* ]]; then
            cmd=${COMP_WORDS[i]}
            break
        fi
    done
    # `fragvote --port 9000` is `fragvote serve --port 9000`.
    local optcmd=${cmd:-serve}

    COMPREPLY=()
    if [[ $prev == -* && $COMP_CWORD -gt 1 ]]; then
        local values=""
        case $prev in
        -p | --proto) values="udp4 tcp4 udp6 tcp6 icmp4 icmp6" ;;
        -f | --mode)
            if [[ $optcmd == export ]]; then values="csv json markdown md svg"
            else values="default dont want do probe interface omit"; fi ;;
        --format) values="csv json markdown md svg" ;;
        --observer) values="auto raw recverr" ;;
        --reassemble) values="r1 r2" ;;
        --target) values="lab" ;;
        --witness) values="lab none" ;;
        esac
        if [[ -n $values ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
            return
        fi
        local metavar
        metavar=$(_fragvote_metavar "$prog" "$optcmd" "$prev")
        case $metavar in
        FILE)
            compopt -o filenames 2>/dev/null
            if [[ $prev == --deck ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$(_fragvote_decks "$prog")" -- "$cur"
                    compgen -f -X '!*.json' -- "$cur"
                    compgen -d -- "$cur")
            else
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            fi
            return
            ;;
        ?*) return ;; # a number, a host, a text: nothing to offer
        esac
    fi

    if [[ $cur == -* ]]; then
        local opts
        opts=$(_fragvote_options "$prog" "$cmd")
        [[ -z $cmd ]] && opts+=" $(_fragvote_options "$prog" serve)"
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
        return
    fi
    if [[ -z $cmd ]]; then
        [[ $COMP_CWORD -eq 1 ]] && mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
        return
    fi
    if [[ $prev == "$cmd" ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_fragvote_subwords "$prog" "$cmd")" -- "$cur")
    fi
}
complete -F _fragvote fragvote
