#include "foldedtext.h"

#include "plaintextlabel.h"
#include "theme.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace verity {

namespace {

constexpr qsizetype longChars = 3000;
constexpr qsizetype longLines = 40;

} // namespace

QString byteSizeText(qint64 bytes)
{
    if (bytes >= 1000 * 1000)
        return QObject::tr("%1 MB").arg(double(bytes) / 1e6, 0, 'f', 1);
    if (bytes >= 1000)
        return QObject::tr("%1 KB").arg((bytes + 500) / 1000);
    return QObject::tr("%1 bytes").arg(bytes);
}

bool FoldedText::isLong(const QString &text)
{
    return text.size() > longChars || text.count(u'\n') >= longLines;
}

FoldedText::FoldedText(const QString &text, qint64 wholeBytes, bool folded, bool monospace, QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);

    auto *line = new QHBoxLayout;
    m_toggle = new QToolButton(this);
    m_toggle->setObjectName(QStringLiteral("foldToggle"));
    m_toggle->setAutoRaise(true);
    m_toggle->setCheckable(true);
    m_toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    line->addWidget(m_toggle);
    // The first line, and how much there is: enough to know whether to open it.
    const qsizetype lines = text.count(u'\n') + 1;
    // Its start on one line: pretty-printed JSON reads as compact JSON, a prompt as its heading on.
    const QString firstLine = text.left(400).simplified();
    const QString size = wholeBytes > 0
            ? byteSizeText(wholeBytes)
            : (lines > 1 ? tr("%1 lines").arg(lines) : tr("%1 characters").arg(text.size()));
    m_preview = plainTextLabel(QStringLiteral("%1 (%2)").arg(firstLine, size), this, false);
    m_preview->setObjectName(QStringLiteral("foldPreview"));
    m_preview->setWordWrap(false);
    m_preview->setStyleSheet(theme::label(theme::Text::Muted));
    // Elided by the layout: the preview never widens the card.
    m_preview->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    line->addWidget(m_preview, 1);
    if (wholeBytes > 0) {
        auto *all = new QPushButton(tr("Show all (%1)").arg(byteSizeText(wholeBytes)), this);
        all->setObjectName(QStringLiteral("showAllButton"));
        all->setToolTip(tr("Only the first %1 characters were read; open the whole text").arg(text.size()));
        connect(all, &QPushButton::clicked, this, &FoldedText::showAllRequested);
        line->addWidget(all);
    }
    layout->addLayout(line);

    m_body = plainTextLabel(wholeBytes > 0 ? text + QStringLiteral("\n…") : text, this);
    if (monospace)
        m_body->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(m_body);

    connect(m_toggle, &QToolButton::toggled, this, [this](bool open) { setFolded(!open); });
    setFolded(folded);
}

bool FoldedText::isFolded() const
{
    return m_body->isHidden();
}

void FoldedText::setFolded(bool folded)
{
    m_body->setVisible(!folded);
    m_preview->setVisible(folded);
    const QSignalBlocker quiet(m_toggle);
    m_toggle->setChecked(!folded);
    m_toggle->setArrowType(folded ? Qt::RightArrow : Qt::DownArrow);
    m_toggle->setText(folded ? tr("Show") : tr("Hide"));
    m_toggle->setToolTip(folded ? tr("Show the whole text here") : tr("Fold the text to one line"));
}

} // namespace verity
