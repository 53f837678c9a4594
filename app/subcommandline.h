#pragma once
// The command line of one subcommand (`verity import`, `verity lookup`, …): Qt's parser, with
// --help's usage line naming the subcommand (Qt's names only the program, which run without the
// subcommand would open the window), and every complaint said on stderr as "verity NAME: …",
// with exit status 2.

#include <QCommandLineParser>
#include <QTextStream>

#include <optional>

namespace verity {

class SubcommandLine
{
public:
    // `description`: what --help says under the usage; --help and -h are added.
    SubcommandLine(QString name, const QString &description);

    QCommandLineParser &parser() { return m_parser; }
    QTextStream &out() { return m_out; }

    // Parses `arguments`. Nothing when the command goes on; else its exit status, said already:
    // 0 after --help (`usage` in place of Qt's usage line), 2 after a complaint.
    std::optional<int> parse(const QStringList &arguments, const QString &usage);
    // The same where the subcommand writes its whole help (`help`); a complaint is followed by it.
    std::optional<int> parseWithOwnHelp(const QStringList &arguments, const QString &help);

    // Says "verity NAME: message" on stderr; returns 2, the exit status for it.
    int fail(const QString &message);

private:
    bool asksForHelp() const;

    QString m_name;
    QCommandLineParser m_parser;
    QTextStream m_out{stdout};
    QTextStream m_err{stderr};
};

} // namespace verity
