package dev.periscope.api.browser;

/**
 * Whether a browser session resumes from its checkpoint after the environment closes, or starts
 * empty.
 */
public enum Persistence {
  EPHEMERAL,
  RESUME
}
