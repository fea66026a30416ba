import ArgumentParser
import CommandSupport
import Logging

/// `locate-publish`: the program `locate publish` runs. It is an executable of its own so that
/// `locate` links none of what publishing needs: libcurl, libmosquitto and the 30 libraries they
/// load made every `locate once` start half again as slow. `locate publish` hands over to it
/// (`execv`): the same process, arguments, signals and exit code.
@main
enum LocatePublish {
    static func main() async {
        // First: SIGINT or SIGTERM from here on starts the drain however early it comes (a test
        // signals as soon as the command has started), and one that came while this program
        // loaded after `locate publish` handed over (with them blocked) is caught now.
        Interrupts.catchFromStart()
        LoggingSystem.bootstrap { WarningLogHandler(label: $0) }
        await Publish.main()
    }
}
