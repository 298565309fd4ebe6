# bash completion for gpuwatch (installed as
# <prefix>/share/bash-completion/completions/gpuwatch, which bash-completion
# loads on first use; without bash-completion, source this file).
# Commands, flags and flag values come from the binary's own --help, so they
# follow whatever version is being completed; runs come from `runs --format json`.

# Prints the help of the command given by the words "$@" after the binary.
_gpuwatch_help() {
  "$_gpuwatch_bin" "$@" --help 2>/dev/null
}

# The subcommand names of a help text: the block after "Subcommands:", one
# name per line indented by two spaces (wrapped descriptions are indented more).
_gpuwatch_subcommands() {
  awk '/^Subcommands:/ { inside = 1; next }
       inside && /^  [a-z]/ { print $1; next }
       inside && !/^   / { inside = 0 }'
}

# The flags of a help text, one per line: "-o,--output TEXT ..." gives -o and --output.
_gpuwatch_flags() {
  awk '/^Options:/ { inside = 1; next }
       /^[^ ]/ { inside = 0 }
       inside && /^ +-/ { n = split($1, names, ","); for (i = 1; i <= n; i++) print names[i] }'
}

# The help line of flag $1 in a help text (empty when there is none).
_gpuwatch_flag_line() {
  awk -v flag="$1" '/^[^ ]/ { inside = ($0 ~ /^Options:/); next }
       inside && /^ +-/ { n = split($1, names, ","); for (i = 1; i <= n; i++) if (names[i] == flag) { print; exit } }'
}

# Run ids and names from the store, when there is one (completing must never
# create a store).
_gpuwatch_runs() {
  local store=${GPUWATCH_STORE:-${XDG_DATA_HOME:-$HOME/.local/share}/gpuwatch/runs.db}
  [[ -f $store ]] || return 0
  echo last
  "$_gpuwatch_bin" runs --format json 2>/dev/null | grep -oE '"(id|name)": *"[^"\\]*"' | sed -E 's/^"(id|name)": *"(.*)"$/\2/'
}

_gpuwatch() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local _gpuwatch_bin=${COMP_WORDS[0]}
  [[ $_gpuwatch_bin == "~/"* ]] && _gpuwatch_bin=$HOME/${_gpuwatch_bin#\~/}
  COMPREPLY=()

  # Walk the words before the cursor: subcommands deepen the path, a flag
  # that takes a value (its help line names a type) skips that value, and
  # `--` hands the rest to the command that `record` runs.
  local path=() help subs i word line
  help=$(_gpuwatch_help)
  subs=$(_gpuwatch_subcommands <<<"$help")
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ $word == -- ]]; then
      if declare -F _command_offset >/dev/null; then
        _command_offset $((i + 1))
      elif ((COMP_CWORD == i + 1)); then
        mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
      else
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      fi
      return 0
    elif [[ $word == -* ]]; then
      line=$(_gpuwatch_flag_line "$word" <<<"$help")
      [[ $word != *=* && $line =~ ^\ +[^\ ]+\ [A-Z] ]] && ((i++))
    elif grep -qx -- "$word" <<<"$subs"; then
      path+=("$word")
      help=$(_gpuwatch_help "${path[@]}")
      subs=$(_gpuwatch_subcommands <<<"$help")
    fi
  done

  # The value of a flag: its choices when the help lists them ({a,b,c}),
  # nothing for numbers, file names otherwise.
  if [[ $prev == -* ]]; then
    line=$(_gpuwatch_flag_line "$prev" <<<"$help")
    if [[ $line =~ ^\ +[^\ ]+\ [A-Z]+:\{([^}]*)\} ]]; then
      mapfile -t COMPREPLY < <(compgen -W "${BASH_REMATCH[1]//,/ }" -- "$cur")
      return 0
    elif [[ $line =~ ^\ +[^\ ]+\ (INT|UINT|FLOAT|NUMBER) ]]; then
      return 0
    elif [[ $line =~ ^\ +[^\ ]+\ [A-Z] ]]; then
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return 0
    fi
  fi

  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_gpuwatch_flags <<<"$help")" -- "$cur")
  elif [[ -n $subs ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$subs" -- "$cur")
  else
    # A RUN may be a stored run or a file that `import` reads.
    if grep -q '^  RUN' <<<"$help"; then
      mapfile -t COMPREPLY < <(compgen -W "$(_gpuwatch_runs)" -- "$cur")
    fi
    mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
  fi
  return 0
}
complete -o filenames -F _gpuwatch gpuwatch
