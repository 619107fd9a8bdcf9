// Package jaas reads the JAAS login configuration files that ZooKeeper
// users write and point the server at with
// -Djava.security.auth.login.config=FILE, such as
//
//	Server {
//	       org.apache.zookeeper.server.auth.DigestLoginModule required
//	       user_super="adminsecret"
//	       user_bob="bobsecret";
//	};
//
// The grammar and its corner cases are those of the JDK's parser,
// sun.security.provider.ConfigFile on a java.io.StreamTokenizer, checked
// against it by the tests (testdata/JaasDump.java):
//
//   - A file is a list of sections "Name { entries };"; each entry is
//     "ClassName Flag [key=value ...];" and the flag is required,
//     requisite, sufficient or optional, in any case. A section may be
//     empty, and a section name may appear only once in a file.
//   - Names, class names, flags, keys and values are bare words or
//     "double-quoted strings". A bare word starts with a letter, "$", "_",
//     "*" or a character from U+00A0 up, and goes on with those, digits,
//     "." and "-". So values such as 1024, /etc/zk.keytab or bob@EXAMPLE
//     must be quoted: a word cannot start with a digit, "." or "-", and
//     "@", ":" or "/" end it.
//   - Quoted strings take Java escapes: \n \t \b \f \r \a \v, octal \0 to
//     \377, and a backslash before any other character (a newline
//     included) stands for that character. So write C:\\zk\\zk.keytab or
//     C:/zk/zk.keytab, not C:\zk\zk.keytab.
//   - Comments are // and /* */; a lone "/" also starts a comment that
//     runs to the end of the line (after swallowing the character that
//     follows it, even a newline). "#" is not a comment and, like '...'
//     strings and any other punctuation, is a syntax error.
//   - In every non-empty value, ${name} is replaced by the named property
//     (Java's system properties; here the lookup function), ${/} by the
//     path separator and ${{...}} is kept as is; an undefined name, or a
//     value that expands to nothing, is an error.
//
// Deliberate differences: a quoted string left open at the end of its
// line is an error here, where the JDK ends the string there silently; a
// section "named" by a number or a punctuation character (as in
// "1 { ... };") is an error here, where the JDK files it under the name
// null, out of reach; and line numbers in errors count every line, where
// the JDK skips the lines inside /* */ comments and the newline a lone "/"
// swallows, and names the line after a value it cannot expand. A byte-order mark is not skipped, as in the
// JDK: it becomes part of the first section name.
//
// ParseJVMFlags reads the SERVER_JVMFLAGS / JVMFLAGS strings of
// zookeeper-env.sh / java.env, to find the configuration file and the -D
// properties its ${name} references expand to.
package jaas
