import CourseFiles

// The examples of CourseFiles, as printed in its `///` comments and its DocC article, in functions
// that give them what they name. ReadmeTests checks that each example is here.

enum CourseExamples {
    // CourseFiles/CourseFile.swift
    static func courseFile() throws {
        let course = try CourseFile.read(contentsOf: "ride.gpx")
        print(course.length, course.cues.count)
        try CourseFile.write(course, as: .fit, toFileAt: "ride.fit")
    }

    // CourseFiles.docc/CourseFiles.md
    static func courseFilesArticle() throws {
        let course = try CourseFile.read(contentsOf: "ride.gpx")
        for cue in course.cues { print(cue.distance, cue.kind, cue.name ?? "") }
        try CourseFile.write(course, as: .fit, toFileAt: "ride.fit", fit: CourseFITOptions(sport: .cycling, speed: 6))
    }
}
