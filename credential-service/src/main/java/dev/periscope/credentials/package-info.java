/**
 * The reference credential service: a project's credential references, each resolved from an
 * environment variable or the profile's encrypted store and bound to the origins it may be filled
 * into. Values never appear in a message, a log or a listing.
 */
package dev.periscope.credentials;
