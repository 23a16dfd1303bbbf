package dev.resurfacer.cli;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.cli.demo.DemoCommand;
import dev.resurfacer.config.Secrets;
import dev.resurfacer.iceberg.catalog.Catalogs;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code resurfacer} command. Exit codes: 0 ok, 1 a table or check failed, 2 usage or configuration error, 3 a safety fence refused. */
@Command(
    name = "resurfacer",
    // INHERIT hands --help, --version and the exit-code list to every subcommand, nested ones and
    // verbs added later included.
    scope = CommandLine.ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = Versions.class,
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      " 0:ok",
      " 1:a table or operation failed",
      " 2:usage or configuration error",
      " 3:a safety fence refused"
    },
    description =
        "Keeps Iceberg and Delta Lake tables healthy: compaction, expiry, orphan removal, vacuum and more, in one JVM.",
    footer = {
      "%nExamples:",
      "  resurfacer demo                       # the whole story on a demo table",
      "  resurfacer describe shop.orders       # a table's health",
      "  resurfacer help compact               # help on one verb"
    })
public final class Main implements Runnable {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;
  public static final int REFUSED = 3;

  /**
   * The verbs, in the order the help lists them; one per line, so branches adding verbs merge without
   * touching each other's lines. Registered here rather than in {@code @Command(subcommands)} so that a
   * run of one verb builds only that verb's model: building all of them (every option of every verb,
   * by reflection) was most of what {@code --version} cost, about 0.18 s.
   */
  private static final java.util.Set<String> LISTING_ONLY =
      java.util.Set.of("-h", "--help", "-V", "--version");

  static final List<Class<?>> VERBS = List.of(
      DescribeCommand.class,
      PlanCommand.class,
      AdviseCommand.class,
      CompactCommand.class,
      CondenseCommand.class,
      ExpireCommand.class,
      RemoveOrphansCommand.class,
      RestoreOrphansCommand.class,
      RemoveDanglingDeletesCommand.class,
      RewriteManifestsCommand.class,
      RewritePositionDeletesCommand.class,
      ConvertEqualityDeletesCommand.class,
      UpgradeCommand.class,
      ComputeStatsCommand.class,
      ComputePartitionStatsCommand.class,
      ApplyRetentionCommand.class,
      VacuumCommand.class,
      CheckpointCommand.class,
      CleanupLogCommand.class,
      MaintainCommand.class,
      ServeCommand.class,
      PolicyCommand.class,
      EnginesCommand.class,
      DoctorCommand.class,
      DemoCommand.class,
      CompletionCommand.class,
      CompleteTablesCommand.class,
      ArchiveTrainingCommand.class,
      CommandLine.HelpCommand.class);

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.exit(commandLine(CliContext.system(), args).execute(args));
  }

  /** A configured command line; tests call {@code execute} on it with their own context and writers. */
  public static CommandLine commandLine(CliContext ctx) {
    return commandLine(ctx, new String[] {"help"});
  }

  /**
   * The command line for a run of {@code args}: with none, or only {@code --help} or {@code --version},
   * every verb listed by name and description only; with a verb's exact name,
   * that verb alone; otherwise every verb, as {@code help}, a misspelt verb's suggestions and completion
   * need. What a run parses and prints is the same as with {@link #commandLine(CliContext)}
   * ({@code SelectiveCommandLineTest}).
   */
  static CommandLine commandLine(CliContext ctx, String... args) {
    ContextFactory factory = new ContextFactory(ctx);
    CommandLine cl = new CommandLine(new Main(), factory);
    String firstArgument = args.length > 0 ? args[0] : "";
    if (args.length == 0 || (args.length == 1 && LISTING_ONLY.contains(firstArgument))) {
      // the root's help lists each verb by its name and description, its version names none: no
      // verb's options are needed
      for (Class<?> verb : VERBS) {
        Command c = verb.getAnnotation(Command.class);
        CommandLine.Model.CommandSpec listed =
            CommandLine.Model.CommandSpec.create().name(c.name()).aliases(c.aliases());
        listed.usageMessage().description(c.description()).header(c.header()).hidden(c.hidden());
        cl.addSubcommand(c.name(), new CommandLine(listed));
      }
    } else {
      List<Class<?>> verbs =
          VERBS.stream().filter(v -> verbName(v).equals(firstArgument)).toList();
      for (Class<?> verb : verbs.isEmpty() || firstArgument.equals("help") ? VERBS : verbs) {
        cl.addSubcommand(verb);
      }
    }
    cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      boolean verbose = parsed.subcommands().stream().anyMatch(p -> p.hasMatchedOption("--verbose"))
          || parsed.hasMatchedOption("--verbose")
          || deepVerbose(parsed);
      PrintWriter err = cmd.getErr();
      int code;
      String message;
      if (ex instanceof UsageException) {
        code = USAGE;
        message = ex.getMessage();
      } else if (ex instanceof SafetyRefusal) {
        code = REFUSED;
        message = "refused: " + ex.getMessage();
      } else {
        code = FAILED;
        message = Catalogs.rootMessage(ex);
      }
      // messages are built without secrets; a library's own message may still carry one in a URL or
      // key=value
      err.println("error: " + Secrets.redactText(message.lines().findFirst().orElse(message)));
      if (verbose) {
        ex.printStackTrace(err);
      }
      err.flush();
      return code;
    });
    cl.setParameterExceptionHandler((ex, parsedArgs) -> {
      CommandLine c = ex.getCommandLine();
      c.getErr()
          .println("error: " + ex.getMessage() + " (see '" + c.getCommandSpec().qualifiedName()
              + " --help')");
      c.getErr().flush();
      return USAGE;
    });
    return cl;
  }

  private static String verbName(Class<?> verb) {
    return verb.getAnnotation(Command.class).name();
  }

  private static boolean deepVerbose(CommandLine.ParseResult parsed) {
    for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption("--verbose")) {
        return true;
      }
    }
    return false;
  }

  /** Hands every command the process context. */
  private record ContextFactory(CliContext ctx) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> cls) throws Exception {
      for (var c : cls.getDeclaredConstructors()) {
        if (c.getParameterCount() == 1 && c.getParameterTypes()[0] == CliContext.class) {
          c.setAccessible(true);
          return cls.cast(c.newInstance(ctx));
        }
      }
      return CommandLine.defaultFactory().create(cls);
    }
  }
}
