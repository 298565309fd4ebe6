# Drives the installed zsh completion _gpuwatch outside zsh's line editor,
# where the completion builtins do not exist: stand-ins print the candidates
# that start with the word being completed, one per line. What this checks is
# _gpuwatch's own logic (which words, from which --help); compsys itself is zsh's.
#   zsh -f complete_zsh.zsh SITE_FUNCTIONS_DIR 'gpuwatch record --inter'
fpath=($1 $fpath)
autoload -Uz _gpuwatch
words=(${(z)2})
[[ $2 == *' ' ]] && words+=('')
CURRENT=${#words}
PREFIX=${words[CURRENT]}

emit() {
  local w
  for w in "$@"; do
    [[ ${w[1,${#PREFIX}]} == "$PREFIX" ]] && print -r -- "$w"
  done
  return 0
}
compadd() { [[ $1 == -a ]] && emit "${(@P)2}" }
_describe() { emit "${(@)${(@P)4}%%:*}" }  # _describe -t TAG DESCRIPTION ARRAY
_normal() { emit "${(@k)commands}" }       # the command after --: any command
_files() { emit *(N) }
_message() { : }

# Its status is that of the last stand-in; what counts is what it printed.
_gpuwatch
exit 0
