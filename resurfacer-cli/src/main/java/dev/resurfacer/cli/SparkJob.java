package dev.resurfacer.cli;

import dev.resurfacer.config.Secrets;
import dev.resurfacer.spark.JobSql;
import java.util.Map;

/**
 * The command line inside a spark-submit job: resurfacer-spark-job's main class loads this jar in a
 * class loader of its own (so our Iceberg, Parquet and Hadoop never meet the cluster's Iceberg Spark
 * runtime) and calls {@link #run} with the job's session as plain functions ({@link JobSql}). The
 * {@code spark} engine then runs on that session; every verb, the policy and the report are the CLI's.
 * The job's main class registers this jar's JDBC drivers before calling in (see its {@code registerJdbcDrivers}).
 */
public final class SparkJob {
  private SparkJob() {}

  /** @return the CLI's exit code */
  public static int run(String[] args, Map<String, Object> session) {
    return Main.commandLine(CliContext.system().withEngine(JobSql.provider(session)))
        .execute(args);
  }

  /** The redaction the CLI gives its error line ({@link Secrets#redactText}), for the job's own last line. */
  public static String redact(String line) {
    return Secrets.redactText(line);
  }
}
