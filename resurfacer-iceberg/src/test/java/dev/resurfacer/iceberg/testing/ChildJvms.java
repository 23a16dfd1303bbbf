package dev.resurfacer.iceberg.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;

/** What fixtures that run servers as child JVMs share: a classpath resolved at build time, and free loopback ports. */
public final class ChildJvms {
  private ChildJvms() {}

  /** The classpath a fixture module wrote into {@code resource} on the test classpath. */
  public static String classpath(String resource, String module) throws IOException {
    try (InputStream in = ChildJvms.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            resource + " is missing: build with the " + module + " module");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    }
  }

  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
