package dev.resurfacer.trino;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns what Trino answers into one clear line: its retention floors become a refusal that names
 * the Trino setting, an unreachable server, an unknown catalog/schema/table or a denied privilege
 * become usage errors (exit 2). Anything else stays a failure with Trino's own message, without the
 * driver's query-id prefix.
 */
public final class TrinoFailures {
  private static final Pattern FLOOR = Pattern.compile(
      "Retention specified \\(([^)]+)\\) is shorter than the minimum retention configured in the system \\(([^)]+)\\)\\."
          + " Minimum retention can be changed with (\\S+) configuration property or (\\S+) session property");
  private static final Pattern QUERY_ID = Pattern.compile("^Query failed \\([^)]*\\):\\s*");
  private static final Pattern MISSING = Pattern.compile(
      "(Catalog '[^']*' (?:not found|does not exist)|Schema '[^']*' does not exist|Table '[^']*' does not exist)");

  private TrinoFailures() {}

  /** What to throw for {@code e}, raised by Trino while doing {@code what} (for example "expire_snapshots"). */
  public static RuntimeException translate(TrinoConnection trino, String what, SQLException e) {
    String message = message(e);
    Matcher floor = FLOOR.matcher(message);
    if (floor.find()) {
      return new SafetyRefusal(
          "Trino refuses " + what + " with retention " + floor.group(1) + ": its floor "
              + floor.group(3) + " is " + floor.group(2) + " on catalog " + trino.catalog()
              + " (lower that setting or the session property " + floor.group(4)
              + ", or ask for at least " + floor.group(2) + ")");
    }
    if (unreachable(e)) {
      return new UsageException("cannot reach Trino at " + trino.url() + ": " + rootMessage(e), e);
    }
    Matcher missing = MISSING.matcher(message);
    if (missing.find()) {
      return new UsageException("Trino at " + trino.url() + ": " + missing.group(1), e);
    }
    if (message.startsWith("Access Denied")
        || message.contains("Authentication failed")
        || message.contains("Unauthorized")) {
      return new UsageException(
          "Trino at " + trino.url() + " denied " + what + " to user " + trino.user() + ": "
              + message,
          e);
    }
    return new IllegalStateException("Trino " + what + " failed: " + message, e);
  }

  /** Trino's own message, without the driver's "Query failed (#id):" prefix. */
  static String message(SQLException e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return QUERY_ID.matcher(m).replaceFirst("").strip();
  }

  private static boolean unreachable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException) {
        return true;
      }
      String m = t.getMessage();
      if (m != null && (m.contains("Failed to connect") || m.contains("Connection refused"))) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
