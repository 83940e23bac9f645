/**
 * The {@code harness} command line (picocli): plugins, skills, credentials, scripted runs, the
 * operator's views of what plugins keep (through their operator tools) and the doctor. Start with
 * {@link dev.periscope.harness.cli.Main}.
 */
package dev.periscope.harness.cli;
