#pragma once

#include <QWidget>

class QLabel;
class QToolButton;

namespace verity {

// A transcript text that may be long: a system prompt with its tool list, a large result.
// Folded, it is one line (its start, and how long it is) that unfolds on a click; a text that
// came cut short offers "Show all (N MB)", which asks for the whole text.
class FoldedText : public QWidget
{
    Q_OBJECT

public:
    // `wholeBytes`: the whole text's size when `text` is only its start, else 0.
    FoldedText(const QString &text, qint64 wholeBytes, bool folded, bool monospace,
               QWidget *parent = nullptr);

    bool isFolded() const;
    void setFolded(bool folded);
    QLabel *body() const { return m_body; }

    // Whether a text this long should open folded: more than a screenful.
    static bool isLong(const QString &text);

signals:
    void showAllRequested();

private:
    QToolButton *m_toggle;
    QLabel *m_preview;
    QLabel *m_body;
};

// "48.2 MB", "12 KB", "930 bytes".
QString byteSizeText(qint64 bytes);

} // namespace verity
