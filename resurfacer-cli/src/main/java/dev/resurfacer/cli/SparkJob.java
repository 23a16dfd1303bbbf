package dev.resurfacer.cli;

import dev.resurfacer.spark.JobSql;
import java.util.Map;

/**
 * The command line inside a spark-submit job: resurfacer-spark-job's main class loads this jar in a
 * class loader of its own (so our Iceberg, Parquet and Hadoop never meet the cluster's Iceberg Spark
 * runtime) and calls {@link #run} with the job's session as plain functions ({@link JobSql}). The
 * {@code spark} engine then runs on that session; every verb, the policy and the report are the CLI's.
 */
public final class SparkJob {
  private SparkJob() {}

  /** @return the CLI's exit code */
  public static int run(String[] args, Map<String, Object> session) {
    registerOurJdbcDrivers();
    return Main.commandLine(CliContext.system().withEngine(JobSql.provider(session))).execute(args);
  }

  /**
   * DriverManager finds drivers once per JVM, through whichever class loader asks first; in a job
   * that is Spark's, and it hands a caller only drivers its own loader can see. Our catalogs (SQLite,
   * PostgreSQL) would then find "no suitable driver", so our loader's drivers are registered too.
   */
  private static void registerOurJdbcDrivers() {
    for (java.sql.Driver driver : java.util.ServiceLoader.load(java.sql.Driver.class, SparkJob.class.getClassLoader())) {
      try {
        java.sql.DriverManager.registerDriver(driver);
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException("cannot register JDBC driver " + driver.getClass().getName() + ": " + e.getMessage(), e);
      }
    }
  }
}
