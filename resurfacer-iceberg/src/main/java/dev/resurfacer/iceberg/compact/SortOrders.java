package dev.resurfacer.iceberg.compact;

import dev.resurfacer.UsageException;
import dev.resurfacer.names.Identifiers;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Term;

/**
 * Parses {@code --sort-by} into an Iceberg {@link SortOrder} and finds the table's matching order id.
 * Each field is {@code column [ASC|DESC] [NULLS FIRST|LAST]} or a transform of a column
 * ({@code day(ts)}, {@code bucket(16, id)}, ...); columns are references as {@link ColumnRefs} reads
 * them, so {@code letter/abc} and {@code `letter/abc`} name the same column.
 */
final class SortOrders {
  /** A transform: an unquoted word right before an opening parenthesis. */
  private static final Pattern TRANSFORM = Pattern.compile("([A-Za-z_]+)\\s*\\(");

  private static final Pattern DIRECTION =
      Pattern.compile("(?i)\\s*(?<dir>ASC|DESC)?\\s*(?:NULLS\\s+(?<nulls>FIRST|LAST))?\\s*");

  private SortOrders() {}

  static SortOrder parse(Schema schema, String text) {
    return parse(schema, text, "the table");
  }

  static SortOrder parse(Schema schema, String text, String table) {
    SortOrder.Builder builder = SortOrder.builderFor(schema);
    for (String part : Identifiers.splitList(text, "--sort-by")) {
      Matcher t = TRANSFORM.matcher(part);
      Term term;
      int end;
      if (t.lookingAt()) {
        int close = closing(part, t.end());
        term = transform(schema, t.group(1), part.substring(t.end(), close), part, table);
        end = close + 1;
      } else {
        Identifiers.Read ref = Identifiers.read(part, 0, true, "--sort-by");
        term = Expressions.ref(ColumnRefs.icebergName(
            schema, ColumnRefs.field(schema, ref.parts(), "--sort-by", table)));
        end = ref.end();
      }
      Matcher m = DIRECTION.matcher(part.substring(end));
      if (!m.matches()) {
        throw new UsageException("--sort-by: cannot read '" + part.trim()
            + "' (write: col [ASC|DESC] [NULLS FIRST|LAST];"
            + " a column name holding blanks, commas or parentheses in backticks)");
      }
      boolean desc = "DESC".equalsIgnoreCase(m.group("dir"));
      NullOrder nulls = m.group("nulls") == null
          ? (desc ? NullOrder.NULLS_LAST : NullOrder.NULLS_FIRST)
          : "FIRST".equalsIgnoreCase(m.group("nulls"))
              ? NullOrder.NULLS_FIRST
              : NullOrder.NULLS_LAST;
      try {
        if (desc) {
          builder.desc(term, nulls);
        } else {
          builder.asc(term, nulls);
        }
      } catch (RuntimeException e) {
        throw new UsageException("--sort-by: " + e.getMessage());
      }
    }
    try {
      return builder.build();
    } catch (RuntimeException e) {
      throw new UsageException("--sort-by: " + e.getMessage());
    }
  }

  /** The id of a declared sort order equal to {@code order}, or 0 (unsorted) when none is. */
  static int stampedId(Table table, SortOrder order) {
    for (SortOrder declared : table.sortOrders().values()) {
      if (!declared.isUnsorted() && declared.sameOrder(order)) {
        return declared.orderId();
      }
    }
    return 0;
  }

  /** The index of the parenthesis closing the one before {@code from}, quotes skipped. */
  private static int closing(String text, int from) {
    char quote = 0;
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '`' || c == '"') {
        quote = c;
      } else if (c == ')') {
        return i;
      }
    }
    throw new UsageException("--sort-by: '" + text.trim() + "' has no closing ')'");
  }

  private static Term transform(Schema schema, String fn, String inner, String text, String table) {
    List<String> args = Identifiers.splitList(inner, "--sort-by");
    String name = fn.toLowerCase(Locale.ROOT);
    if (!List.of(
            "year",
            "years",
            "month",
            "months",
            "day",
            "days",
            "hour",
            "hours",
            "identity",
            "bucket",
            "truncate")
        .contains(name)) {
      throw new UsageException(
          "--sort-by: unknown transform '" + name + "' in '" + text.trim() + "'");
    }
    boolean width = name.equals("bucket") || name.equals("truncate");
    if (args.size() != (width ? 2 : 1)) {
      throw new UsageException("--sort-by: '" + text.trim() + "' needs "
          + (width ? "a width and a column, e.g. bucket(16, id)" : "one column"));
    }
    String column = ColumnRefs.icebergName(
        schema, ColumnRefs.field(schema, args.get(args.size() - 1), "--sort-by", table));
    return switch (name) {
      case "year", "years" -> Expressions.year(column);
      case "month", "months" -> Expressions.month(column);
      case "day", "days" -> Expressions.day(column);
      case "hour", "hours" -> Expressions.hour(column);
      case "bucket" -> Expressions.bucket(column, width(args.get(0), text));
      case "truncate" -> Expressions.truncate(column, width(args.get(0), text));
      case "identity" -> Expressions.ref(column);
      default ->
        throw new UsageException(
            "--sort-by: unknown transform '" + name + "' in '" + text.trim() + "'");
    };
  }

  private static int width(String n, String text) {
    try {
      int w = Integer.parseInt(n.trim());
      if (w < 1) {
        throw new NumberFormatException();
      }
      return w;
    } catch (NumberFormatException e) {
      throw new UsageException(
          "--sort-by: '" + text.trim() + "' needs a positive width first, e.g. bucket(16, id)");
    }
  }
}
