package dev.resurfacer.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Reads the {@code defaults:} and {@code tables:} sections of a parsed {@code resurfacer.yml}. */
public final class PolicyParser {
  private PolicyParser() {}

  /**
   * @param defaults the {@code defaults:} node, or null
   * @param tables the {@code tables:} node (pattern to section), or null
   * @param where the file name, which starts every error message
   */
  public static Policies parse(JsonNode defaults, JsonNode tables, String where) {
    PolicyLayer.Check check = new PolicyLayer.Check(where);
    PolicyLayer base = defaults == null || defaults.isNull()
        ? PolicyLayer.EMPTY
        : PolicyLayer.parse(defaults, where, "defaults");
    List<Policies.Rule> rules = new ArrayList<>();
    if (tables != null && !tables.isNull()) {
      check.object(tables, "tables");
      int position = 0;
      for (Iterator<Map.Entry<String, JsonNode>> it = tables.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String pattern = e.getKey().trim();
        dev.resurfacer.names.NameGlob glob;
        try {
          glob = dev.resurfacer.names.NameGlob.parse(pattern, "tables key");
        } catch (dev.resurfacer.UsageException bad) {
          throw check.fail(bad.getMessage());
        }
        rules.add(new Policies.Rule(
            new TablePattern(glob, position++),
            PolicyLayer.parse(e.getValue(), where, "tables." + pattern)));
      }
    }
    return new Policies(base, rules);
  }
}
