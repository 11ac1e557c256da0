// What a file cut short says when its format states no length: the checks of its own bytes and its demuxer's word.
import Foundation

extension Demuxer {
    /// A file of a format that states no length, cut where libavformat drops what is left without
    /// a word: a YUV4MPEG file inside a picture (`partialPicture`), an Ogg file inside a page
    /// (`partialOggPage`).
    var cutTailWarning: String? {
        partialPictureWarning ?? partialOggPageWarning
    }

    /// A Matroska/WebM file whose reading met its end inside an element (a cluster or block cut
    /// off), as its demuxer logs it: the word a file cut short gets when it states no length (a
    /// live WebM from a browser's MediaRecorder, a stream dump), where there is no header
    /// length for `shortfall` to compare with. Only for what was read so far.
    var endedInsideElementWarning: String? {
        endedInsideElement ? "the file ends inside a Matroska element, which is left out: it may be cut short" : nil
    }
}
