package dev.resurfacer.it.serve;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4: every line is a HELP, a TYPE or a
 * sample; names and label names follow the format's grammar; label values use only its escapes;
 * every sample belongs to a family typed before it; a family is typed once and a series appears once.
 * Anything else throws, naming the line.
 */
final class PrometheusText {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern HELP = Pattern.compile("# HELP (" + NAME.pattern() + ") (.*)");
  private static final Pattern TYPE =
      Pattern.compile("# TYPE (" + NAME.pattern() + ") (counter|gauge|histogram|summary|untyped)");
  private static final Pattern SAMPLE =
      Pattern.compile("(" + NAME.pattern() + ")(\\{(.*)})? (\\S+)( -?\\d+)?");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\\\n]|\\\\[\\\\\"n])*)\"");

  record Sample(String name, Map<String, String> labels, double value) {}

  final Map<String, String> types = new LinkedHashMap<>();
  final List<Sample> samples = new ArrayList<>();

  static PrometheusText parse(String text) {
    PrometheusText p = new PrometheusText();
    Set<String> helped = new HashSet<>();
    Set<String> series = new HashSet<>();
    if (!text.endsWith("\n")) {
      throw new IllegalArgumentException("the exposition must end with a newline");
    }
    int n = 0;
    for (String line : text.split("\n", -1)) {
      n++;
      if (line.isEmpty()) {
        continue;
      }
      Matcher m;
      if ((m = HELP.matcher(line)).matches()) {
        if (!helped.add(m.group(1))) {
          throw new IllegalArgumentException("line " + n + ": second HELP for " + m.group(1));
        }
      } else if ((m = TYPE.matcher(line)).matches()) {
        if (p.types.put(m.group(1), m.group(2)) != null) {
          throw new IllegalArgumentException("line " + n + ": second TYPE for " + m.group(1));
        }
      } else if (line.startsWith("#")) {
        throw new IllegalArgumentException(
            "line " + n + ": a comment that is neither HELP nor TYPE: " + line);
      } else if ((m = SAMPLE.matcher(line)).matches()) {
        String name = m.group(1);
        if (!p.types.containsKey(name)) {
          throw new IllegalArgumentException(
              "line " + n + ": sample of " + name + " before its TYPE");
        }
        Map<String, String> labels = labels(m.group(3), n);
        double value = value(m.group(4), n);
        if (!series.add(name + labels)) {
          throw new IllegalArgumentException("line " + n + ": duplicate series " + name + labels);
        }
        if (p.types.get(name).equals("counter") && value < 0) {
          throw new IllegalArgumentException("line " + n + ": negative counter " + line);
        }
        p.samples.add(new Sample(name, labels, value));
      } else {
        throw new IllegalArgumentException("line " + n + ": not a valid sample: " + line);
      }
    }
    return p;
  }

  private static Map<String, String> labels(String text, int n) {
    Map<String, String> out = new LinkedHashMap<>();
    if (text == null || text.isEmpty()) {
      return out;
    }
    int at = 0;
    while (at < text.length()) {
      Matcher m = LABEL.matcher(text);
      m.region(at, text.length());
      if (!m.lookingAt()) {
        throw new IllegalArgumentException(
            "line " + n + ": bad label at '" + text.substring(at) + "'");
      }
      if (out.put(
              m.group(1),
              m.group(2).replace("\\n", "\n").replace("\\\"", "\"").replace("\\\\", "\\"))
          != null) {
        throw new IllegalArgumentException("line " + n + ": label " + m.group(1) + " twice");
      }
      at = m.end();
      if (at < text.length()) {
        if (text.charAt(at) != ',') {
          throw new IllegalArgumentException("line " + n + ": expected ',' between labels");
        }
        at++;
      }
    }
    return out;
  }

  private static double value(String s, int n) {
    switch (s) {
      case "+Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      case "NaN":
        return Double.NaN;
      default:
        try {
          return Double.parseDouble(s);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("line " + n + ": bad value " + s);
        }
    }
  }

  /** The value of the one sample of {@code name} with exactly these labels. */
  double value(String name, Map<String, String> labels) {
    return samples.stream()
        .filter(s -> s.name().equals(name) && s.labels().equals(labels))
        .mapToDouble(Sample::value)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no sample " + name + labels));
  }

  List<Sample> all(String name) {
    return samples.stream().filter(s -> s.name().equals(name)).toList();
  }

  static Map<String, String> table(String catalog, String table) {
    Map<String, String> m = new HashMap<>();
    m.put("catalog", catalog);
    m.put("table", table);
    return m;
  }
}
