package dev.resurfacer.trino;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Vacuum;
import io.delta.kernel.Snapshot;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The operations Trino's Delta Lake connector runs for us: compact ({@code ALTER TABLE … EXECUTE
 * optimize}) and vacuum ({@code CALL <catalog>.system.vacuum}). Checkpoints and log cleanup have no
 * Trino procedure (Trino checkpoints on its own commits) and are refused by the runner with the
 * capability's note. A table is named in Trino by its delta-catalog name {@code schema.table}.
 */
public final class DeltaOnTrino {
  private DeltaOnTrino() {}

  /** @param trino the connection whose catalog is Trino's Delta Lake catalog */
  public static List<OperationExecutor<?, DeltaTable>> executors(TrinoConnection trino) {
    TrinoStatements statements = new TrinoStatements(trino);
    return List.of(
        OperationExecutor.of(Compact.class, new TrinoDeltaCompact(statements)),
        OperationExecutor.of(Vacuum.class, new TrinoDeltaVacuum(statements)));
  }

  /** The table as Trino names it; a Delta table given by location has no Trino name. */
  static TrinoTableName name(TrinoStatements trino, DeltaTable t) {
    String[] parts = t.name().split("\\.");
    if (parts.length != 2 || t.name().contains("/")) {
      throw new UsageException("Trino names Delta tables catalog.schema.table: name " + t.name()
          + " by its schema.table in a delta catalog of resurfacer.yml (the same name Trino's catalog "
          + trino.connection().catalog() + " has it under)");
    }
    return new TrinoTableName(trino.connection().catalog(), parts[0], parts[1]);
  }

  /**
   * The table as Trino names it, once Trino's table under that name is shown to be the one we read:
   * the same log version, and every data file Trino reads among our live files (compared by file
   * name: Delta writers put a UUID in each). A name alone could send Trino to another table (another
   * environment's, a clone) whose storage our fences and verification never looked at.
   */
  static TrinoTableName sameTable(TrinoStatements trino, DeltaTable t, Snapshot snapshot) {
    TrinoTableName name = name(trino, t);
    String trinoVersion = trino.value(
        "identify " + name,
        "SELECT max(version) FROM " + TrinoTableName.quote(name.catalog()) + "."
            + TrinoTableName.quote(name.schema()) + "."
            + TrinoTableName.quote(name.table() + "$history"));
    if (trinoVersion == null || Long.parseLong(trinoVersion) != snapshot.getVersion()) {
      throw new SafetyRefusal(
          "Trino's " + name + " is at version " + trinoVersion + " and " + t.name() + " at "
              + snapshot.getVersion()
              + ": not shown to be the same table (or a commit landed between the reads); nothing was run");
    }
    Set<String> ours = new HashSet<>();
    for (LiveFile f : LiveFiles.of(t, snapshot)) {
      ours.add(f.file().path().substring(f.file().path().lastIndexOf('/') + 1));
    }
    if (ours.isEmpty()) {
      // with no file to compare, any table at the same version would pass
      throw new SafetyRefusal(t.name() + " has no live files, so Trino's " + name
          + " cannot be shown to be the same table; nothing was run");
    }
    for (String path :
        trino.strings("identify " + name, "SELECT DISTINCT \"$path\" FROM " + name.sql())) {
      String file = path.substring(path.lastIndexOf('/') + 1);
      if (!ours.contains(file)) {
        throw new SafetyRefusal(
            "Trino's " + name + " reads " + path + ", which is not a live file of " + t.name()
                + ": not the same table; nothing was run");
      }
    }
    return name;
  }
}
