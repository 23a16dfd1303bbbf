package dev.resurfacer.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "completion",
    footer = {"%nExamples:", "  source <(resurfacer completion bash)                 # this shell",
        "  resurfacer completion bash > ~/.local/share/bash-completion/completions/resurfacer",
        "  resurfacer completion zsh >> ~/.zshrc"},
    description = {"Print a shell completion script for every verb and flag, generated from the command model.",
        "zsh runs the same script through bash completion: it calls autoload -U bashcompinit && bashcompinit itself."})
final class CompletionCommand implements Callable<Integer> {
  enum Shell { bash, zsh }

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "SHELL", description = "bash or zsh.")
  Shell shell;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    // picocli's script starts by loading compinit and bashcompinit when it runs under zsh, so one script serves both shells.
    out.print(AutoComplete.bash(spec.root().name(), spec.root().commandLine()));
    out.flush();
    return Main.OK;
  }
}
