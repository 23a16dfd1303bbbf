package dev.resurfacer.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "completion",
    footer = {
      "%nExamples:",
      "  source <(resurfacer completion bash)                 # this shell",
      "  resurfacer completion bash > ~/.local/share/bash-completion/completions/resurfacer",
      "  resurfacer completion zsh >> ~/.zshrc"
    },
    description = {
      "Print a shell completion script for every verb and flag, generated from the command model.",
      "zsh runs the same script through bash completion: it calls autoload -U bashcompinit && bashcompinit itself."
    })
final class CompletionCommand implements Callable<Integer> {
  enum Shell {
    bash,
    zsh
  }

  @Spec
  CommandSpec spec;

  @Parameters(paramLabel = "SHELL", description = "bash or zsh.")
  Shell shell;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    // picocli's script starts by loading compinit and bashcompinit when it runs under zsh, so one
    // script serves both shells.
    out.print(AutoComplete.bash(spec.root().name(), spec.root().commandLine()));
    out.print(tableNames(spec.root()));
    out.flush();
    return Main.OK;
  }

  /**
   * Wraps picocli's function: where a verb takes a TABLE and picocli offers nothing, the words are
   * the default catalog's tables, as {@code resurfacer __complete-tables} lists them (silent on error).
   */
  static String tableNames(CommandSpec root) {
    String verbs = root.subcommands().values().stream()
        .filter(c -> c.getCommandSpec().positionalParameters().stream()
            .anyMatch(p -> p.paramLabel().equals("TABLE")))
        .map(c -> c.getCommandName())
        .distinct()
        .sorted()
        .collect(Collectors.joining("|"));
    return """

        # Table names from the configured catalog after a verb that takes a TABLE.
        _complete_resurfacer_tables() {
          _complete_resurfacer "$@"
          local cur="${COMP_WORDS[COMP_CWORD]}"
          if [[ ${#COMPREPLY[@]} -eq 0 && $COMP_CWORD -ge 2 && "$cur" != -* ]]; then
            case "${COMP_WORDS[1]}" in
              %s)
                local IFS=$'\\n'
                COMPREPLY=( $(compgen -W "$("${COMP_WORDS[0]}" __complete-tables 2>/dev/null)" -- "$cur") )
                ;;
            esac
          fi
        }
        complete -F _complete_resurfacer_tables -o default %s
        """.formatted(verbs, root.name());
  }
}
