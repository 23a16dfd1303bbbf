package dev.resurfacer.scanreports;

/** Just enough JSON writing for one report line: the collector ships without a JSON library. */
final class JsonText {
  private JsonText() {}

  static void string(StringBuilder b, CharSequence s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }

  static void field(StringBuilder b, String name) {
    if (b.charAt(b.length() - 1) != '{') {
      b.append(',');
    }
    string(b, name);
    b.append(':');
  }
}
