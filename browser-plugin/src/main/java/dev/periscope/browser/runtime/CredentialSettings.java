package dev.periscope.browser.runtime;

import java.util.Map;

/**
 * What the credential channel is configured with: credential references backed by environment
 * variables ({@code credentials.refs}) and whether every fill needs approval ({@code
 * credentials.requireApproval}).
 */
public record CredentialSettings(Map<String, String> refs, boolean requireApproval) {
  public CredentialSettings {
    refs = Map.copyOf(refs);
  }
}
