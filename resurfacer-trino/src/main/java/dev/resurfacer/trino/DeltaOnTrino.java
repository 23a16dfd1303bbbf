package dev.resurfacer.trino;

import dev.resurfacer.UsageException;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.maintain.OperationExecutor;
import java.util.List;

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
    return List.of(new TrinoDeltaCompact(statements), new TrinoDeltaVacuum(statements));
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
}
