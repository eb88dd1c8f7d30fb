/** SCRIPT HELP and FUNCTION HELP as redis-server 7.0.15 prints them (status lines). */
import { Simple } from '../../reply';

const lines = (text: string): Simple[] => text.split('\n').map((l) => new Simple(l));

const kFlushModes = (what: string) => `    When called without the optional mode argument, the behavior is determined by the
    lazyfree-lazy-user-flush configuration directive. Valid modes are:
    * ASYNC: Asynchronously flush the ${what}.
    * SYNC: Synchronously flush the ${what}.`;

export const kScriptHelp = lines(`SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:
DEBUG (YES|SYNC|NO)
    Set the debug mode for subsequent scripts executed.
EXISTS <sha1> [<sha1> ...]
    Return information about the existence of the scripts in the script cache.
FLUSH [ASYNC|SYNC]
    Flush the Lua scripts cache. Very dangerous on replicas.
${kFlushModes('scripts cache')}
KILL
    Kill the currently executing Lua script.
LOAD <script>
    Load a script into the scripts cache without executing it.
HELP
    Prints this help.`);

export const kFunctionHelp = lines(`FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:
LOAD [REPLACE] <FUNCTION CODE>
    Create a new library with the given library name and code.
DELETE <LIBRARY NAME>
    Delete the given library.
LIST [LIBRARYNAME PATTERN] [WITHCODE]
    Return general information on all the libraries:
    * Library name
    * The engine used to run the Library
    * Library description
    * Functions list
    * Library code (if WITHCODE is given)
    It also possible to get only function that matches a pattern using LIBRARYNAME argument.
STATS
    Return information about the current function running:
    * Function name
    * Command used to run the function
    * Duration in MS that the function is running
    If no function is running, return nil
    In addition, returns a list of available engines.
KILL
    Kill the current running function.
FLUSH [ASYNC|SYNC]
    Delete all the libraries.
${kFlushModes('libraries')}
DUMP
    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command
RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]
    Restore the libraries represented by the given payload, it is possible to give a restore policy to
    control how to handle existing libraries (default APPEND):
    * FLUSH: delete all existing libraries.
    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.
    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old
      libraries with the new libraries (notice that even on this option there is a chance of failure
      in case of functions name collision with another library).
HELP
    Prints this help.`);
