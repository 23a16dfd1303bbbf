package dev.resurfacer.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code --key value} pairs. */
final class Args {
  private Args() {}

  static Map<String, String> parse(String[] args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --key value pairs, got '" + args[i] + "'");
      }
      out.put(args[i].substring(2), args[++i]);
    }
    return out;
  }
}
