package dev.resurfacer.spark.job;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code spark-submit --class dev.resurfacer.spark.job.JobMain resurfacer-spark.jar maintain --config
 * resurfacer.yml [--yes]}: the resurfacer command line as a Spark application. The runnable jar rides
 * inside this one and is loaded in a class loader whose parent is the JDK's platform loader, so our
 * Iceberg core, Parquet and Hadoop never share a class loader with the cluster's Iceberg Spark runtime
 * (which bundles Iceberg's classes unshaded, wired to its relocated Parquet). Only JDK types cross
 * between the two: {@link JobSession} hands over the job's Spark session as plain functions.
 */
public final class JobMain {
  static final String RUNNABLE = "resurfacer.jar";
  static final String ENTRY = "dev.resurfacer.cli.SparkJob";

  private JobMain() {}

  public static void main(String[] args) throws IOException {
    Path dir = Files.createTempDirectory("resurfacer-job");
    Path jar = dir.resolve(RUNNABLE);
    int code;
    try (JobSession session = new JobSession()) {
      try (InputStream in = JobMain.class.getResourceAsStream(RUNNABLE)) {
        if (in == null) {
          throw new IllegalStateException("this job jar carries no " + RUNNABLE + ": build it through the reactor (mvn package)");
        }
        Files.copy(in, jar);
      }
      code = run(jar, args, session.handedOver());
    } finally {
      Files.deleteIfExists(jar);
      Files.deleteIfExists(dir);
    }
    // our code may leave non-daemon threads (pools, drivers); the session is stopped, so the job ends here
    System.exit(code);
  }

  private static int run(Path jar, String[] args, Map<String, Object> session) throws IOException {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    try (URLClassLoader ours = new URLClassLoader("resurfacer", new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      // ServiceLoader, Hadoop and JDBC drivers look classes up through the context loader
      thread.setContextClassLoader(ours);
      Method entry = ours.loadClass(ENTRY).getMethod("run", String[].class, Map.class);
      return (Integer) entry.invoke(null, args, session);
    } catch (InvocationTargetException e) {
      System.err.println("error: " + JobSession.firstLine(e.getCause()));
      return 1;
    } catch (ReflectiveOperationException e) {
      System.err.println("error: " + RUNNABLE + " in this job jar has no " + ENTRY + ".run: " + e);
      return 1;
    } finally {
      thread.setContextClassLoader(previous);
    }
  }
}
