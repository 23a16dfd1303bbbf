package dev.resurfacer.it.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;

/**
 * Headless Chromium as the dashboard's reader: the DOM it rendered and a screenshot. On CI
 * ({@code CI=true}, where {@code .ci/run} installs chromium) a missing browser fails; elsewhere the
 * caller is skipped.
 */
record Chromium(String binary, Path profile) {
  static Chromium find(Path dir) {
    for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
      for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
        if (Files.isExecutable(Path.of(d, name))) {
          return new Chromium(Path.of(d, name).toString(), dir.resolve("chromium-profile"));
        }
      }
    }
    assertThat(System.getenv("CI"))
        .as("CI must have chromium (installed by .ci/run)")
        .isNotEqualTo("true");
    Assumptions.abort("chromium is not installed");
    return null;
  }

  /** The page's DOM after Chromium loaded and laid it out. */
  String dom(String url) throws Exception {
    Path out = Files.createTempFile(profile.getParent(), "dom", ".html");
    run(out, "--dump-dom", url);
    return Files.readString(out);
  }

  BufferedImage screenshot(String url, Path png) throws Exception {
    run(
        png.resolveSibling(png.getFileName() + ".log"),
        "--screenshot=" + png,
        "--window-size=1200,1400",
        url);
    assertThat(png).exists();
    return ImageIO.read(png.toFile());
  }

  private void run(Path output, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--user-data-dir=" + profile));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command)
        .redirectOutput(output.toFile())
        .redirectError(output.resolveSibling(output.getFileName() + ".err").toFile())
        .start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("chromium finished").isTrue();
  }

  static long pixels(BufferedImage image, int rgb) {
    long n = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        if ((image.getRGB(x, y) & 0xffffff) == rgb) {
          n++;
        }
      }
    }
    return n;
  }
}
