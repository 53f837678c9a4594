#pragma once
// What opening one ticket of a 50 MB message and a 5 MB result costs in the real window:
// the time from asking for the ticket to its view painted, and the memory it added. The
// ticket is written and imported first, in a child of its own, so that the import's memory
// is not counted; the figures go to stdout as "name value" lines.

#include <QString>

namespace verity::bench {

// Writes `file`: one OpenAI chat conversation with a message of `messageMb` MB and a tool
// result of a tenth of that.
bool writeLargeTicket(const QString &file, int messageMb);

// Runs in a process of its own (it creates the QApplication).
int runLargeTicketProbe(int argc, char **argv, const QString &database);

} // namespace verity::bench
