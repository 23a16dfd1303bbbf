package dev.resurfacer.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/** A Delta log whose file paths are written in other spellings: the alias attacks on object stores. */
public final class LogSpellings {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LogSpellings() {}

  /**
   * Each add and remove path of every JSON commit through one of {@code spellings}, picked by the
   * path (a file's add and its remove get the same one: readers match the two as text), and each
   * absolute deletion vector's path likewise; checkpoints dropped so every reader replays the edited
   * commits.
   */
  public static void respell(Path root, List<UnaryOperator<String>> spellings) throws IOException {
    Path log = root.resolve("_delta_log");
    try (Stream<Path> s = Files.list(log)) {
      for (Path f : s.toList()) {
        String name = f.getFileName().toString();
        if (name.contains("checkpoint")) {
          Files.delete(f);
          continue;
        }
        if (!name.endsWith(".json")) {
          if (name.endsWith(".crc")) {
            Files.delete(f);
          }
          continue;
        }
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
          JsonNode action = JSON.readTree(line);
          for (String kind : List.of("add", "remove")) {
            if (action.has(kind)) {
              ObjectNode a = (ObjectNode) action.get(kind);
              String path = a.get("path").asText();
              a.put("path", spellings.get(Math.floorMod(path.hashCode(), spellings.size())).apply(path));
              JsonNode dv = a.get("deletionVector");
              if (dv != null && "p".equals(dv.path("storageType").asText())) {
                String dvPath = dv.get("pathOrInlineDv").asText();
                ((ObjectNode) dv).put("pathOrInlineDv", spellings.get(Math.floorMod(dvPath.hashCode(), spellings.size())).apply(dvPath));
              }
            }
          }
          out.add(JSON.writeValueAsString(action));
        }
        Files.write(f, out, StandardCharsets.UTF_8);
      }
    }
  }
}
