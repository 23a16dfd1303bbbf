package dev.resurfacer.iceberg.maintain;

import dev.resurfacer.maintain.LeaseHeld;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;

/**
 * A maintenance lease kept in the table property {@value #PROPERTY} ({@code OWNER until INSTANT}).
 * Taking and releasing it are metadata commits made with {@link TableOperations#commit} against the
 * exact metadata that was checked, so the catalog's atomic swap decides between two runs racing for
 * it: the loser's commit fails, it re-reads, sees the winner's lease and skips. That works the same
 * whether the files live on a local disk or an object store, because it relies on the catalog, not
 * on storage. A lease past its expiry is taken over, so a crashed run blocks a table for at most the
 * lease duration.
 */
final class TableLease implements AutoCloseable {
  static final String PROPERTY = "resurfacer.maintain.lease";
  private static final int ATTEMPTS = 10;

  private final TableOperations ops;
  private final String value;

  private TableLease(TableOperations ops, String value) {
    this.ops = ops;
    this.value = value;
  }

  static TableLease acquire(Table table, String owner, Duration ttl, Clock clock) {
    TableOperations ops = ((HasTableOperations) table).operations();
    Instant until = clock.instant().plus(ttl);
    String value = owner + " until " + until;
    for (int attempt = 1; ; attempt++) {
      TableMetadata base = ops.refresh();
      String held = base.property(PROPERTY, null);
      if (held != null && !expired(held, clock.instant())) {
        throw new LeaseHeld("another maintain run holds the lease on this table (" + held + ")");
      }
      Map<String, String> props = new HashMap<>(base.properties());
      props.put(PROPERTY, value);
      try {
        ops.commit(base, base.replaceProperties(props));
        table.refresh();
        return new TableLease(ops, value);
      } catch (CommitFailedException e) {
        // someone committed since we read: re-check the lease against what they wrote
        if (attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  static boolean expired(String held, Instant now) {
    int at = held.lastIndexOf(" until ");
    if (at < 0) {
      return false;
    }
    try {
      return Instant.parse(held.substring(at + 7).trim()).isBefore(now);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Removes the property if it is still ours; a lease someone took over after expiry is left alone. */
  @Override
  public void close() {
    for (int attempt = 1; ; attempt++) {
      TableMetadata base = ops.refresh();
      if (!value.equals(base.property(PROPERTY, null))) {
        return;
      }
      Map<String, String> props = new HashMap<>(base.properties());
      props.remove(PROPERTY);
      try {
        ops.commit(base, base.replaceProperties(props));
        return;
      } catch (CommitFailedException e) {
        if (attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
