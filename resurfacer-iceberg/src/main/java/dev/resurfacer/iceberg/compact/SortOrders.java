package dev.resurfacer.iceberg.compact;

import dev.resurfacer.UsageException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Term;

/** Parses {@code --sort-by} into an Iceberg {@link SortOrder} and finds the table's matching order id. */
final class SortOrders {
  private static final Pattern FIELD = Pattern.compile(
      "(?i)\\s*(?<term>[A-Za-z_][\\w.]*\\s*\\([^)]*\\)|[A-Za-z_][\\w.]*)\\s*(?<dir>ASC|DESC)?\\s*(?:NULLS\\s+(?<nulls>FIRST|LAST))?\\s*");
  private static final Pattern FUNCTION = Pattern.compile("(?i)(\\w+)\\s*\\(\\s*([^,)]+?)\\s*(?:,\\s*([^)]+?)\\s*)?\\)");

  private SortOrders() {}

  static SortOrder parse(Schema schema, String text) {
    SortOrder.Builder builder = SortOrder.builderFor(schema);
    for (String part : splitTopLevel(text)) {
      Matcher m = FIELD.matcher(part);
      if (!m.matches()) {
        throw new UsageException("--sort-by: cannot read '" + part.trim() + "' (write: col [ASC|DESC] [NULLS FIRST|LAST])");
      }
      boolean desc = "DESC".equalsIgnoreCase(m.group("dir"));
      NullOrder nulls = m.group("nulls") == null
          ? (desc ? NullOrder.NULLS_LAST : NullOrder.NULLS_FIRST)
          : "FIRST".equalsIgnoreCase(m.group("nulls")) ? NullOrder.NULLS_FIRST : NullOrder.NULLS_LAST;
      Term term = term(m.group("term").trim());
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

  private static Term term(String text) {
    Matcher f = FUNCTION.matcher(text);
    if (!f.matches()) {
      return Expressions.ref(text);
    }
    String fn = f.group(1).toLowerCase(Locale.ROOT);
    String a = f.group(2);
    String b = f.group(3);
    return switch (fn) {
      case "year", "years" -> Expressions.year(a);
      case "month", "months" -> Expressions.month(a);
      case "day", "days" -> Expressions.day(a);
      case "hour", "hours" -> Expressions.hour(a);
      case "bucket" -> Expressions.bucket(b, width(a, text));
      case "truncate" -> Expressions.truncate(b, width(a, text));
      case "identity" -> Expressions.ref(a);
      default -> throw new UsageException("--sort-by: unknown transform '" + fn + "' in '" + text + "'");
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
      throw new UsageException("--sort-by: '" + text + "' needs a positive width first, e.g. bucket(16, id)");
    }
  }

  private static java.util.List<String> splitTopLevel(String text) {
    java.util.List<String> parts = new java.util.ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        parts.add(text.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(text.substring(start));
    if (parts.stream().anyMatch(String::isBlank)) {
      throw new UsageException("--sort-by: empty field in '" + text + "'");
    }
    return parts;
  }
}
